package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// cobble reconcile --file reads a local export in place of a download.
func TestReconcileFromFile(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	if _, _, err := runCobble(t.Context(), env, "project", "add", "--url", "https://proj.example.org/",
		"--name", "Proj", "--authenticator", "k"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "host.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	hosts := []exporttest.Host{{ID: 1, UserID: 5, TotalCredit: 10}, {ID: 2, UserID: 6, TotalCredit: 20}}
	if err := exporttest.WriteHostExport(zw, slices.Values(hosts), exporttest.Options{}); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	f.Close()
	stdout, _, err := runCobble(t.Context(), env, "reconcile", "--project", "https://proj.example.org/", "--file", path)
	if err != nil || !strings.Contains(stdout, "Proj: ok") || !strings.Contains(stdout, "2 hosts scanned, 0 matched") {
		t.Errorf("reconcile --file: %v\n%s", err, stdout)
	}
	// A truncated file fails the run, in one line, and exits non-zero.
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)/2], 0o644)
	stdout, _, err = runCobble(t.Context(), env, "reconcile", "--project", "https://proj.example.org/", "--file", path)
	if err == nil || !strings.Contains(stdout, "Proj: failed") {
		t.Errorf("truncated file: %v\n%s", err, stdout)
	}
	errCase{args: []string{"reconcile", "--file", path}, env: env, usage: true, want: []string{"--file needs --project"}}.check(t)
	errCase{args: []string{"reconcile", "--project", "https://nope.example.org/"}, env: env,
		want: []string{"no project with the URL"}}.check(t)
}

func TestRatioFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--ratio-low", "1.5"}, {"--ratio-high", "0.9"}, {"--ratio-window", "1h"}} {
		errCase{args: append([]string{"serve"}, args...), env: map[string]string{"DATABASE_URL": "postgres://127.0.0.1:1/x"},
			usage: true, want: []string{"--ratio-"}}.check(t)
	}
	errCase{args: []string{"serve"}, env: map[string]string{"COBBLE_RATIO_WINDOW": "soon"}, usage: true,
		want: []string{"COBBLE_RATIO_WINDOW"}}.check(t)
}
