package reconcile_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/boinc/exporttest"
	"github.com/cobble-am/cobble/internal/testdb"
)

// gatedSource opens its files from inner once gate is closed; opened is
// closed at its first Open.
type gatedSource struct {
	inner  boinc.ExportSource
	gate   chan struct{}
	opened chan struct{}
	once   sync.Once
	let    sync.Once
}

// release lets Open go on.
func (g *gatedSource) release() { g.let.Do(func() { close(g.gate) }) }

func newGatedSource(inner boinc.ExportSource) *gatedSource {
	return &gatedSource{inner: inner, gate: make(chan struct{}), opened: make(chan struct{})}
}

func (g *gatedSource) Open(ctx context.Context, name string, prev boinc.Validators) (io.ReadCloser, boinc.Validators, error) {
	g.once.Do(func() { close(g.opened) })
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, boinc.Validators{}, ctx.Err()
	}
	return g.inner.Open(ctx, name, prev)
}

// startGated begins a run of e's project from a gated source and returns
// the source, once the run is waiting on it, and the run's outcome.
func startGated(e *reconEnv) (*gatedSource, <-chan runOutcome) {
	e.t.Helper()
	src := newGatedSource(boinc.NewStatsSource(e.stats.URL(), boinc.DownloadLimits{AllowPrivate: true}))
	done := make(chan runOutcome, 1)
	e.t.Cleanup(src.release)
	go func() {
		run, err := e.rec.RunProject(e.ctx, e.proj, src, "gated")
		done <- runOutcome{run, err}
	}()
	select {
	case <-src.opened:
	case <-time.After(20 * time.Second):
		e.t.Fatal("the run did not open its export in 20 s")
	}
	return src, done
}

type runOutcome struct {
	run reconcile.Run
	err error
}

// endLockSession ends the database session holding e's project lock, as a
// failover ends every session of the old primary.
func endLockSession(e *reconEnv) {
	e.t.Helper()
	waitLock(e, true)
	var ended bool
	err := e.pool.QueryRow(e.ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND granted
		  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
		0x5245_4300, e.proj.ID).Scan(&ended)
	if err != nil || !ended {
		e.t.Fatalf("ending the lock's session: %v, %v", ended, err)
	}
	waitLock(e, false)
}

// waitLock waits up to 10 s until e's project lock is held, or not.
func waitLock(e *reconEnv, held bool) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var is bool
		err := e.pool.QueryRow(e.ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND granted
			  AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`,
			0x5245_4300, e.proj.ID).Scan(&is)
		if err != nil {
			e.t.Fatal(err)
		}
		if is == held {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("waited 10 s for the project lock to be held: %v", held)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A run whose lock's session ended (its primary failed over), and which
// another runner took over meanwhile, stores nothing when its export
// arrives: the other runner marked it abandoned, and it stays so.
func TestRunThatLostItsLockStoresNothing(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000)}, 1)
	src, done := startGated(e)
	endLockSession(e)
	if run := e.run(); run.Status != reconcile.RunOK {
		t.Fatalf("the run that took over: %+v", run)
	}
	before := e.confirmed()
	// A newer export, which the first run, let go now, reads.
	e.stats.publish(may1.Add(24*time.Hour), []exporttest.Host{gen(101, 42, 3000)}, 1)
	src.release()
	out := <-done
	if out.err == nil || !strings.Contains(out.err.Error(), "lost the project's lock") {
		t.Errorf("the first run ended with %v, want it to say that it lost the project's lock", out.err)
	}
	if out.run.Status != reconcile.RunAbandoned {
		t.Errorf("the first run is %q, want abandoned", out.run.Status)
	}
	var ok, abandoned int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FILTER (WHERE status = 'ok'),
		count(*) FILTER (WHERE status = 'abandoned') FROM reconcile_runs`).Scan(&ok, &abandoned); err != nil {
		t.Fatal(err)
	}
	if ok != 1 || abandoned != 1 {
		t.Errorf("%d ok runs and %d abandoned, want 1 and 1", ok, abandoned)
	}
	if after := e.confirmed(); len(after) != len(before) || !sameCredit(before, after) {
		t.Errorf("the confirmed ledger changed after the abandoned run: %v, then %v", before, after)
	}
}

// A run whose lock's session ended, and which nobody took over, takes the
// lock again and stores its outcome.
func TestRunTakesItsLockAgain(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000)}, 1)
	src, done := startGated(e)
	endLockSession(e)
	src.release()
	out := <-done
	if out.err != nil || out.run.Status != reconcile.RunOK {
		t.Fatalf("the run: %+v, %v; want ok", out.run, out.err)
	}
	// It released the lock it took again: another run may start.
	if _, err := e.rec.RunProject(e.ctx, e.proj, nil, ""); errors.Is(err, reconcile.ErrRunBusy) {
		t.Errorf("the next run is refused as busy: the lock taken again was not released")
	}
}

func sameCredit(a, b map[string]float64) bool {
	for k, v := range a {
		if !near(v, b[k]) {
			return false
		}
	}
	return true
}

// endLockSession ends only its own database's lock session: tests of other
// databases on the same PostgreSQL (cmd/cobble's two reconcile processes)
// hold the same key for their project of the same id. It ended theirs, and
// their held lock was taken by the run they expected to be refused.
func TestEndLockSessionStaysInItsDatabase(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	other, err := pgx.Connect(e.ctx, testdb.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	var ok bool
	if err := other.QueryRow(e.ctx, `SELECT pg_try_advisory_lock($1)`, int64(0x5245_4300)<<32|e.proj.ID).Scan(&ok); err != nil || !ok {
		t.Fatalf("the other database's lock: %v, %v", ok, err)
	}
	src, done := startGated(e)
	endLockSession(e)
	if err := other.Ping(e.ctx); err != nil {
		t.Errorf("the other database's session holding the same key was ended: %v", err)
	}
	src.release()
	<-done
}
