package pgcluster

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// serverUser is the system user PostgreSQL's programs run as when Cobble
// runs as root, because PostgreSQL refuses to run as root.
const serverUser = "postgres"

// account is a system user other than the current one that the server
// programs run as; a nil *account means the current user.
type account struct {
	name   string
	uid    int
	gid    int
	groups []int // every group the user is in, the primary one included
}

// serverAccount returns the account to run PostgreSQL as: nil unless the
// process is root, the postgres system user if it is.
func serverAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: Cobble runs as root and PostgreSQL refuses to run as root, "+
			"but there is no %q system user to run it as (%v); install the Debian package postgresql, "+
			"which creates that user, or run Cobble as a normal user", serverUser, err)
	}
	a := &account{name: u.Username}
	if a.uid, err = strconv.Atoi(u.Uid); err != nil {
		return nil, fmt.Errorf("pgcluster: user %s has uid %q: %w", u.Username, u.Uid, err)
	}
	if a.gid, err = strconv.Atoi(u.Gid); err != nil {
		return nil, fmt.Errorf("pgcluster: user %s has gid %q: %w", u.Username, u.Gid, err)
	}
	if a.uid == 0 {
		return nil, fmt.Errorf("pgcluster: user %s has uid 0, and PostgreSQL refuses to run as root", u.Username)
	}
	a.groups = []int{a.gid}
	ids, _ := u.GroupIds() // Without the list, only the primary group counts.
	for _, id := range ids {
		if g, err := strconv.Atoi(id); err == nil && !slices.Contains(a.groups, g) {
			a.groups = append(a.groups, g)
		}
	}
	return a, nil
}

// sysProcAttr starts a server program in its own process group, so that a
// Ctrl-C in Cobble's terminal reaches Cobble alone and Cobble decides how the
// server stops, and as a's user when a is not nil.
func (a *account) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if a != nil {
		groups := make([]uint32, len(a.groups))
		for i, g := range a.groups {
			groups[i] = uint32(g)
		}
		attr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: groups}
	}
	return attr
}

// checkReachable returns a clear error if a cannot search every directory
// above dir, which it needs to reach its data directory.
func (a *account) checkReachable(dir string) error {
	var ancestors []string
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		ancestors = append(ancestors, p)
		if p == filepath.Dir(p) {
			break
		}
	}
	slices.Reverse(ancestors)
	for _, p := range ancestors {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		var bit fs.FileMode
		switch {
		case int(st.Uid) == a.uid:
			bit = 0o100
		case slices.Contains(a.groups, int(st.Gid)):
			bit = 0o010
		default:
			bit = 0o001
		}
		if fi.Mode().Perm()&bit == 0 {
			return fmt.Errorf("pgcluster: PostgreSQL runs as the %s user here (Cobble runs as root), "+
				"and that user cannot reach %s: the directory %s (mode %s, owner uid %d, group gid %d) "+
				"does not let it through; allow it with `chmod o+x %s`, or put the cluster in a directory it can reach",
				a.name, dir, p, fi.Mode(), st.Uid, st.Gid, p)
		}
	}
	return nil
}

// chownTree gives dir and everything in it to a, unless dir already
// belongs to a.
func (a *account) chownTree(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == a.uid && int(st.Gid) == a.gid {
		return nil
	}
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, a.uid, a.gid)
	})
	if err != nil {
		return fmt.Errorf("pgcluster: giving %s to the %s user: %w", dir, a.name, err)
	}
	return nil
}

// checkOwnedByMe returns a clear error unless the current user owns dir:
// PostgreSQL runs only as the owner of its data directory.
func checkOwnedByMe(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return nil
	}
	return fmt.Errorf("pgcluster: %s belongs to uid %d, but PostgreSQL runs only as the owner of its data directory "+
		"and Cobble runs as uid %d; run Cobble as that user (or as root), or remove the directory to start afresh",
		dir, st.Uid, os.Geteuid())
}

// pidFile is what a running postmaster records in postmaster.pid.
type pidFile struct {
	pid  int
	port int
}

const pidFileName = "postmaster.pid"

// readPidFile reads dir/postmaster.pid; ok is false when there is none.
func readPidFile(dir string) (pf pidFile, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, pidFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return pidFile{}, false, nil
	}
	if err != nil {
		return pidFile{}, false, fmt.Errorf("pgcluster: %w", err)
	}
	// Line 1 is the PID, line 4 the port.
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 {
		pf.pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	}
	if len(lines) > 3 {
		pf.port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	return pf, true, nil
}

// isPostmasterOf reports whether process pid is alive and is a postmaster
// serving dir. When it cannot tell (no /proc), a live process counts as one.
func isPostmasterOf(pid int, dir string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false // No such process.
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		return true
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		// The process may have just ended, or /proc is hidden.
		return !errors.Is(err, fs.ErrNotExist)
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	first, _, _ := strings.Cut(string(argv0), " ")
	switch strings.TrimSuffix(filepath.Base(first), ":") {
	case "postgres", "postmaster":
	default:
		return false
	}
	// A postmaster works in its data directory; when its working directory
	// can be read, it must be dir.
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return true
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Clean(cwd) == filepath.Clean(dir)
}
