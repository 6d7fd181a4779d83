package reconcile_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
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
	if run.Status != reconcile.RunFailed || !strings.Contains(run.Error, errDownload.Error()) {
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
	if err == nil || run.Status != reconcile.RunFailed || !strings.Contains(run.Error, "account_userid") {
		t.Errorf("run %+v, err %v; want a failed run that says why", run, err)
	}
}

// A run started in the background (Start) that fails says so in
// Options.Log: its error is not dropped.
func TestStartedRunLogsItsFailure(t *testing.T) {
	t.Parallel()
	var logs strings.Builder // written by the run, read once Close has waited for it
	pool := testdb.New(t)
	store := accounting.NewStore(pool, testOptions)
	p, err := store.Catalog.AddProject(context.Background(), accounting.Project{URL: "https://p.example.org/", Name: "P",
		Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	rec := reconcile.New(store, pool, reconcile.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	rec.Source = func(accounting.Project) boinc.ExportSource { return failingSource{} }
	run, err := rec.Start(p)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); run.Status == reconcile.RunRunning; time.Sleep(20 * time.Millisecond) {
		if run, err = rec.Run(context.Background(), run.ID); err != nil || time.Now().After(deadline) {
			t.Fatalf("run %+v, %v", run, err)
		}
	}
	rec.Close() // waits for the log line
	if got := logs.String(); !strings.Contains(got, "reconciliation failed") || !strings.Contains(got, errDownload.Error()) {
		t.Errorf("log lacks the failed run:\n%s", got)
	}
}
