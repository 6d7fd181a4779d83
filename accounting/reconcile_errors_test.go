package accounting_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// errDownload is what failingSource's files fail with.
var errDownload = errors.New("the stats server broke")

// failingSource is an export whose every file fails with errDownload.
type failingSource struct{}

func (failingSource) Open(context.Context, string, boinc.Validators) (io.ReadCloser, boinc.Validators, error) {
	return nil, boinc.Validators{}, errDownload
}

// A failed run returns its cause's error chain, not a copy of its text.
func TestFailedRunKeepsTheErrorChain(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	run, err := e.rec.RunProject(e.ctx, e.proj, failingSource{}, "broken")
	if !errors.Is(err, errDownload) {
		t.Errorf("err = %v, want errDownload in its chain", err)
	}
	if run.Status != accounting.RunFailed || !strings.Contains(run.Error, errDownload.Error()) {
		t.Errorf("run %+v, want failed with the error recorded", run)
	}
}
