package accounting_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

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

// When Cobble's account on the project cannot be read, the run fails: it
// does not go on as if the account were unknown, which changes matching.
func TestAccountReadFailureFailsTheRun(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1.Add(48*time.Hour), nil, 0)
	if _, err := e.pool.Exec(e.ctx, `ALTER TABLE projects RENAME COLUMN account_userid TO account_userid_gone`); err != nil {
		t.Fatal(err)
	}
	run, err := e.rec.RunProject(e.ctx, e.proj, nil, "")
	if err == nil || run.Status != accounting.RunFailed || !strings.Contains(run.Error, "account_userid") {
		t.Errorf("run %+v, err %v; want a failed run that says why", run, err)
	}
}
