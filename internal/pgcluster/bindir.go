package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// serverBinaries are the programs a bin dir must hold for Cobble to run a
// cluster from it.
var serverBinaries = []string{"initdb", "pg_ctl", "postgres"}

// debianBinRoot is where Debian and Ubuntu install each PostgreSQL major
// version side by side, as /usr/lib/postgresql/<major>/bin.
const debianBinRoot = "/usr/lib/postgresql"

// errNoServer says what to install when no server binaries are found.
var errNoServer = errors.New("pgcluster: no PostgreSQL server binaries (initdb, pg_ctl, postgres) " +
	"found through `pg_config --bindir`, in " + debianBinRoot + "/*/bin or on PATH; " +
	"install the PostgreSQL server: on Debian or Ubuntu `apt-get install postgresql` " +
	"(or run `scripts/deps.sh postgresql`)")

// BinDir finds the PostgreSQL server binaries: `pg_config --bindir` if that
// directory holds initdb, pg_ctl and postgres, else the newest
// /usr/lib/postgresql/*/bin that does, else the directory of an initdb on
// PATH that does. The error says what to install when none is found.
func BinDir() (string, error) {
	dirs := binDirCandidates()
	if len(dirs) == 0 {
		return "", errNoServer
	}
	return dirs[0], nil
}

// binDirCandidates lists every directory with the server binaries, in the
// order BinDir prefers them, without duplicates.
func binDirCandidates() []string {
	var dirs []string
	add := func(dir string) {
		if dir == "" || !hasServer(dir) {
			return
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "pg_config", "--bindir").Output(); err == nil {
		add(strings.TrimSpace(string(out)))
	}

	versioned, _ := filepath.Glob(filepath.Join(debianBinRoot, "*", "bin"))
	slices.SortFunc(versioned, func(a, b string) int {
		// Newest first.
		return compareVersions(versionOfDebianDir(b), versionOfDebianDir(a))
	})
	for _, dir := range versioned {
		add(dir)
	}

	if initdb, err := exec.LookPath("initdb"); err == nil {
		// Through a symlink such as /usr/local/bin/initdb, to the directory
		// of the real one.
		if real, err := filepath.EvalSymlinks(initdb); err == nil && hasServer(filepath.Dir(real)) {
			initdb = real
		}
		add(filepath.Dir(initdb))
	}
	return dirs
}

// hasServer reports whether dir holds every server binary as an executable
// file.
func hasServer(dir string) bool {
	for _, name := range serverBinaries {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// versionOfDebianDir returns "15" for /usr/lib/postgresql/15/bin.
func versionOfDebianDir(binDir string) string {
	return filepath.Base(filepath.Dir(binDir))
}

// compareVersions compares dotted numeric versions such as "9.6" and "15";
// a part that is not a number counts as -1, so odd directory names sort last.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(pa), len(pb)) {
		na, nb := versionPart(pa, i), versionPart(pb, i)
		if na != nb {
			if na < nb {
				return -1
			}
			return 1
		}
	}
	return 0
}

func versionPart(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	n, err := strconv.Atoi(parts[i])
	if err != nil {
		return -1
	}
	return n
}

// serverMajor returns the major version of the postgres binary in binDir in
// the form PG_VERSION files use: "15" for 15.x, "9.6" for 9.6.x.
func serverMajor(ctx context.Context, binDir string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version")
	cmd.Dir = "/"
	cmd.Env = serverEnv()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("pgcluster: %s --version: %w", cmd.Path, err)
	}
	major, ok := parseMajor(string(out))
	if !ok {
		return "", fmt.Errorf("pgcluster: cannot read the version in %q from %s --version", bytes.TrimSpace(out), cmd.Path)
	}
	return major, nil
}

// parseMajor reads "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
func parseMajor(versionOutput string) (string, bool) {
	_, rest, ok := strings.Cut(versionOutput, "(PostgreSQL) ")
	if !ok {
		return "", false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", false
	}
	// Keep the leading digits and dots: development builds say 17devel or
	// 17beta1.
	v := fields[0]
	if i := strings.IndexFunc(v, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }); i >= 0 {
		v = v[:i]
	}
	v = strings.Trim(v, ".")
	parts := strings.Split(v, ".")
	first, err := strconv.Atoi(parts[0])
	if err != nil {
		return "", false
	}
	if first >= 10 || len(parts) < 2 {
		return parts[0], true
	}
	return parts[0] + "." + parts[1], true
}
