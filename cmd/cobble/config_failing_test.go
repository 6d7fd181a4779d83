package main

import (
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// The failing-computer flags reach the server's configuration, default to
// accounting's thresholds, and refuse what cannot be a threshold.
func TestFailingFlags(t *testing.T) {
	t.Parallel()
	cfg, err := serverConfig(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Failing != accounting.DefaultFailingThresholds() {
		t.Errorf("defaults %+v, want accounting's %+v", cfg.Failing, accounting.DefaultFailingThresholds())
	}
	cfg, err = serverConfig(t, map[string]string{"COBBLE_FAILING_SHARE": "0.25"}, "--failing-min-jobs", "5",
		"--failing-window", "48h", "--failing-project-silent", "240h")
	if err != nil {
		t.Fatal(err)
	}
	if f := cfg.Failing; f.MinFailed != 5 || f.FailedShare != 0.25 || f.Window != 48*time.Hour || f.ProjectSilent != 240*time.Hour {
		t.Errorf("set: %+v", f)
	}
	for _, args := range [][]string{{"--failing-share", "1.5"}, {"--failing-min-jobs", "0"}, {"--failing-flat-exports", "1"},
		{"--failing-window", "10m"}, {"--failing-project-silent", "2h"}} {
		errCase{args: append([]string{"serve"}, args...), env: map[string]string{"DATABASE_URL": "postgres://127.0.0.1:1/x"},
			usage: true, want: []string{"--failing-"}}.check(t)
	}
}
