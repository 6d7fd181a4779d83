// Package reconcile confirms the credit Cobble estimates: it downloads
// each project's credit export, matches the hosts it lists with Cobble's,
// verifies each match, and records the credit the project granted beside
// the estimates, with reports of how the two compare. It builds on the
// domain (package accounting) and the wire format (package boinc);
// accounting never imports it.
package reconcile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/cache"
	"github.com/cobble-am/cobble/boinc"
)

// Reconciler downloads projects' credit exports and derives granted credit.
type Reconciler struct {
	catalog *accounting.CatalogStore // the projects it reconciles
	db      *db                      // reconciliation's own tables
	opts    Options
	// Runs started with Start work under bg and are counted in work.
	bg   context.Context
	stop context.CancelFunc
	work sync.WaitGroup
	// Source returns where a project's export is read from; by default its
	// stats URL over HTTP.
	Source func(accounting.Project) boinc.ExportSource
	// Fairness keeps the credit fairness measure (docs/CREDIT.md), from
	// the verified hosts' credit the runs store.
	Fairness *FairnessStore
	now      func() time.Time
}

// New returns a Reconciler reading the catalog from store and keeping
// its runs in the database of pool (the store's).
func New(store *accounting.Store, pool *pgxpool.Pool, opts Options) *Reconciler {
	opts = opts.withDefaults()
	r := &Reconciler{db: &db{pool: pool, reads: store.ReadPool}, opts: opts, now: opts.Now}
	if store != nil { // tests of the pure parts pass none
		r.catalog = store.Catalog
	}
	r.Fairness = &FairnessStore{db: r.db, now: opts.Now,
		pulling: cache.New[pullingKey, []int64](cache.Options[[]int64]{Max: pullingChoices})}
	r.bg, r.stop = context.WithCancel(context.Background())
	r.Source = func(p accounting.Project) boinc.ExportSource {
		return boinc.NewStatsSource(p.StatsURL, boinc.DownloadLimits{Stall: opts.StallTimeout,
			File: opts.FileTimeout, MaxBytes: opts.MaxBytes, AllowPrivate: opts.AllowPrivate})
	}
	return r
}

// RunProject reconciles one project now, from src (nil: the project's
// default source). A run is all or nothing: if the download or the scan
// fails, nothing is stored but the failed run and its error. It returns
// ErrRunBusy without running when another runner holds the project.
func (r *Reconciler) RunProject(ctx context.Context, p accounting.Project, src boinc.ExportSource, sourceName string) (Run, error) {
	if src == nil {
		src, sourceName = r.Source(p), p.StatsURL
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	run, lock, err := r.begin(ctx, p, sourceName)
	if err != nil {
		return Run{}, err
	}
	defer lock.release()
	return r.finish(ctx, p, src, run, lock)
}

// Start begins a run of p from its default source in the background and
// returns the run as it starts (running); Run or Runs show its progress,
// and Options.Log how it ended. A run that stored an export is followed
// by the credit fairness measure, when Options.Log is set. It returns
// ErrRunBusy when another runner holds the project.
func (r *Reconciler) Start(p accounting.Project) (Run, error) {
	ctx, cancel := context.WithTimeout(r.bg, r.opts.Timeout)
	run, lock, err := r.begin(ctx, p, p.StatsURL)
	if err != nil {
		cancel()
		return Run{}, err
	}
	r.work.Go(func() {
		defer cancel()
		defer lock.release()
		run, err := r.finish(ctx, p, r.Source(p), run, lock)
		if log := r.opts.Log; log != nil {
			r.logRun(log, p, run, err)
			if err == nil && run.Status == RunOK {
				r.Measure(ctx, log)
			}
		}
	})
	return run, nil
}

// Close cancels the runs Start began and waits for them to record how
// they ended.
func (r *Reconciler) Close() {
	r.stop()
	r.work.Wait()
}

// begin takes the project's lock and records the run as running.
func (r *Reconciler) begin(ctx context.Context, p accounting.Project, sourceName string) (Run, *projectLock, error) {
	lock, err := r.db.lockProject(ctx, p.ID)
	if err != nil {
		return Run{}, nil, op("reconcile", err)
	}
	if err := r.db.abandonRuns(ctx, p.ID, r.now()); err != nil {
		lock.release()
		return Run{}, nil, op("reconcile", err)
	}
	run, err := r.db.startRun(ctx, p.ID, sourceName, r.now())
	if err != nil {
		lock.release()
		return Run{}, nil, op("reconcile", err)
	}
	return run, lock, nil
}

// finish reads the export and stores the run's outcome, if it still holds
// lock. A failed run returns why it failed (and why it could not be
// recorded, if so).
func (r *Reconciler) finish(ctx context.Context, p accounting.Project, src boinc.ExportSource, run Run,
	lock *projectLock) (_ Run, err error) {
	if r.opts.Observe != nil {
		defer func() { r.opts.Observe(run.Status, r.now().Sub(run.StartedAt)) }()
	}
	res, err := r.reconcile(ctx, p, src, run.ID)
	if err != nil && res.unchanged() {
		run.Status, run.Error = RunUnchanged, ""
		run, err = r.db.finishRun(context.WithoutCancel(ctx), run, r.now())
		return run, err
	}
	if err != nil {
		run.Status, run.Error = RunFailed, err.Error()
		var ferr error
		run, ferr = r.db.finishRun(context.WithoutCancel(ctx), run, r.now())
		return run, errors.Join(err, ferr)
	}
	if run, err = r.db.commitRun(ctx, run, res, lock, r.now()); err != nil {
		return run, err
	}
	// The run is stored; without its ratios the reports sum the ledgers.
	if err := r.storeRatios(ctx, run); err != nil && r.opts.Log != nil {
		r.opts.Log.Warn("storing a run's host ratios failed", "run", run.ID, "err", err)
	}
	// Without them the fairness measure keeps the project's earlier hosts.
	if err := r.storeCreditHosts(ctx, run); err != nil && r.opts.Log != nil {
		r.opts.Log.Warn("storing a run's verified hosts' credit failed", "run", run.ID, "err", err)
	}
	return r.db.run(ctx, run.ID)
}

// errExportUnchanged ends a run early: the export is the one already read.
var errExportUnchanged = errors.New("export unchanged")

// reconcile reads the export and works out what the run stores.
func (r *Reconciler) reconcile(ctx context.Context, p accounting.Project, src boinc.ExportSource, runID int64) (*runResult, error) {
	prevValidators, err := r.db.exportValidators(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	res := &runResult{project: p, validators: map[string]boinc.Validators{}}
	if err := r.readTables(ctx, src, prevValidators, res); err != nil {
		return res, err
	}
	known, err := r.db.knownHosts(ctx, p.ID)
	if err != nil {
		return res, err
	}
	account, err := r.db.accountUserID(ctx, p.ID)
	if err != nil {
		return res, err
	}
	sc := newExportMatcher(known, account, p.AccountEmail)
	if err := r.scanHostFiles(ctx, src, prevValidators, res, sc, runID); err != nil {
		return res, err
	}
	sc.decide()
	res.matcher = sc
	if res.exportTime.IsZero() {
		res.exportTime = r.now()
	}
	return res, nil
}

// readTables reads tables.xml for the export's time; an unchanged file or
// time ends the run as unchanged.
func (r *Reconciler) readTables(ctx context.Context, src boinc.ExportSource, prev map[string]boinc.Validators, res *runResult) error {
	f, v, err := src.Open(ctx, "tables.xml", prev["tables.xml"])
	switch {
	case errors.Is(err, boinc.ErrExportUnchanged):
		res.status = RunUnchanged
		return errExportUnchanged
	case errors.Is(err, boinc.ErrExportMissing):
		return nil // optional: the export time then comes from the host file
	case err != nil:
		return err
	}
	defer f.Close()
	t, err := boinc.ParseTables(f)
	if err != nil {
		return fmt.Errorf("tables.xml: %w", err)
	}
	res.validators["tables.xml"] = v
	if t.UpdateTime > 0 {
		res.exportTime = time.Unix(t.UpdateTime, 0).UTC()
		if seen, err := r.db.exportSeen(ctx, res.project.ID, res.exportTime); err != nil || seen {
			res.status = RunUnchanged
			return cmp.Or(err, errExportUnchanged)
		}
	}
	return nil
}

// scanHostFiles scans host.gz, or host_0.gz, host_1.gz, ... when the
// export is split.
func (r *Reconciler) scanHostFiles(ctx context.Context, src boinc.ExportSource, prev map[string]boinc.Validators,
	res *runResult, m *exportMatcher, runID int64) error {
	err := r.scanHostFile(ctx, src, "host.gz", prev, res, m, runID)
	if !errors.Is(err, boinc.ErrExportMissing) {
		return err
	}
	for i := 0; ; i++ {
		name := fmt.Sprintf("host_%d.gz", i)
		err := r.scanHostFile(ctx, src, name, prev, res, m, runID)
		switch {
		case errors.Is(err, boinc.ErrExportMissing) && i > 0:
			return nil
		case errors.Is(err, boinc.ErrExportMissing):
			return fmt.Errorf("the export has neither host.gz nor host_0.gz: %w", err)
		case err != nil:
			return err
		}
	}
}

// scanHostFile scans one gzipped host export file into m.
func (r *Reconciler) scanHostFile(ctx context.Context, src boinc.ExportSource, name string,
	prev map[string]boinc.Validators, res *runResult, m *exportMatcher, runID int64) error {
	f, v, err := src.Open(ctx, name, prev[name])
	if errors.Is(err, boinc.ErrExportUnchanged) {
		res.status = RunUnchanged
		return errExportUnchanged
	}
	if err != nil {
		return err
	}
	defer f.Close()
	res.validators[name] = v
	if res.exportTime.IsZero() && v.LastModified != "" {
		if t, err := http.ParseTime(v.LastModified); err == nil {
			res.exportTime = t.UTC()
		}
	}
	sc, err := boinc.NewGzipHostScannerContext(ctx, f, r.opts.MaxBytes)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer sc.Close()
	for sc.Next() {
		m.add(sc.Host())
		if sc.Count()%100_000 == 0 {
			r.db.runProgress(ctx, runID, m.scanned)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
