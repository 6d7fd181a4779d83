package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/web"
)

// failingFlags are the thresholds of the failing-computer warnings
// (accounting.FailingThresholds).
type failingFlags struct {
	window, projectSilent, cobbleHeard time.Duration
	minFailed                          int64
	share                              float64
	flatExports                        int
}

// register adds the failing-computer flags to fs.
func (f *failingFlags) register(fs *flag.FlagSet, env environment) error {
	b := &binder{fs: fs, env: env}
	optFailingWindow.to(b, &f.window)
	optFailingMinJobs.to(b, &f.minFailed)
	optFailingShare.to(b, &f.share)
	optFailingFlatExports.to(b, &f.flatExports)
	optFailingProjectSilent.to(b, &f.projectSilent)
	optFailingCobbleHeard.to(b, &f.cobbleHeard)
	return b.err
}

// apply checks the thresholds and sets them in cfg.
func (f *failingFlags) apply(cfg *web.Config) error {
	if f.window < time.Hour || f.minFailed < 1 || f.share <= 0 || f.share > 1 || f.flatExports < 2 ||
		f.projectSilent < 24*time.Hour || f.cobbleHeard < time.Hour {
		return fmt.Errorf("%w: --failing-window and --failing-cobble-heard must be at least 1h, "+
			"--failing-project-silent at least 24h, --failing-min-jobs at least 1, --failing-share above 0 "+
			"and at most 1, --failing-flat-exports at least 2", errUsage)
	}
	cfg.Failing = accounting.FailingThresholds{Window: f.window, MinFailed: f.minFailed, FailedShare: f.share,
		FlatExports: f.flatExports, ProjectSilent: f.projectSilent, CobbleHeard: f.cobbleHeard}
	return nil
}
