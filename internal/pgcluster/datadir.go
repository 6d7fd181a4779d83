package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// prepareDir makes dir if need be and checks that the server's user can
// reach it (when Cobble runs as root) or owns it (otherwise).
func prepareDir(dir string, acct *account) error {
	// Parents get the usual mode, so that the postgres user can reach dir
	// when Cobble runs as root; dir itself must be private to the server.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgcluster: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("pgcluster: %s is not a directory", dir)
	}
	if acct == nil {
		return checkOwnedByMe(dir)
	}
	return acct.checkReachable(dir)
}

// clusterVersion returns the major version recorded in dir/PG_VERSION, or ""
// when dir is empty and so ready for initdb.
func clusterVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "PG_VERSION"))
	if err == nil {
		return strings.TrimSpace(string(data)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	if len(entries) > 0 {
		return "", fmt.Errorf("pgcluster: %s is neither empty nor a PostgreSQL cluster (it has no PG_VERSION); "+
			"remove it, or choose another directory", dir)
	}
	return "", nil
}

// binDirFor finds the server binaries of major version want, the version of
// the existing cluster in dir, preferring them in BinDir's order.
func binDirFor(ctx context.Context, want, dir string) (string, error) {
	candidates := binDirCandidates()
	if len(candidates) == 0 {
		return "", errNoServer
	}
	var found []string
	for _, bin := range candidates {
		major, err := serverMajor(ctx, bin)
		if err != nil {
			return "", err
		}
		if major == want {
			return bin, nil
		}
		found = append(found, major+" in "+bin)
	}
	return "", fmt.Errorf("pgcluster: the cluster in %s was made by PostgreSQL %s, but the server binaries found are "+
		"for another version (%s); install PostgreSQL %s (on Debian the package postgresql-%s), "+
		"or remove %s to start afresh (its data is then lost)",
		dir, want, strings.Join(found, ", "), want, want, dir)
}

// checkNotRunning returns an error if a postmaster serves dir, and removes a
// stale postmaster.pid whose process is gone or is not that postmaster.
func checkNotRunning(dir, bin string, logw io.Writer) error {
	pf, ok, err := readPidFile(dir)
	if err != nil || !ok {
		return err
	}
	if isPostmasterOf(pf.pid, dir) {
		return alreadyRunning(dir, bin, pf)
	}
	if err := os.Remove(filepath.Join(dir, pidFileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pgcluster: removing a stale %s: %w", pidFileName, err)
	}
	fmt.Fprintf(logw, "pgcluster: removed a stale %s (PID %d is not running this cluster)\n", pidFileName, pf.pid)
	return nil
}

func alreadyRunning(dir, bin string, pf pidFile) error {
	return fmt.Errorf("pgcluster: the cluster in %s is already running (postmaster PID %d, port %d), "+
		"perhaps under another `cobble dev`; stop that first, or stop the server with `%s stop -D %s`",
		dir, pf.pid, pf.port, filepath.Join(bin, "pg_ctl"), dir)
}
