// Package pgformation runs a pg_auto_failover formation for tests: a
// monitor and two PostgreSQL 15 nodes, made and run by pg_autoctl on
// loopback, in a temporary directory, as the postgres system user when the
// test runs as root. Cobble's failover test kills the primary's postmaster
// and watches the secondary take over.
package pgformation

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/testport"
)

// BinDir holds the PostgreSQL 15 programs pg_autoctl runs; Debian's
// postgresql-15-auto-failover is built for that version.
const BinDir = "/usr/lib/postgresql/15/bin"

// Autoctl is the pg_autoctl program.
const Autoctl = "/usr/bin/pg_autoctl"

// DBName is the database the formation's nodes serve.
const DBName = "cobble"

// Node is one PostgreSQL server of the formation, with its pg_autoctl
// keeper.
type Node struct {
	Name string // pg_auto_failover's name for it: node_1, node_2
	Port int
	Dir  string // its data directory
	proc *process
}

// Addr is the node's host:port.
func (n *Node) Addr() string { return testport.Addr(n.Port) }

// URL is a connection URL to the node alone.
func (n *Node) URL() string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", n.Addr(), DBName)
}

// Formation is a running monitor and two nodes.
type Formation struct {
	dir         string
	env         []string
	cred        *syscall.Credential // nil: run as the current user
	monitorPort int
	monitor     *process
	Nodes       [2]*Node
}

// Available skips t unless pg_autoctl and PostgreSQL 15 are installed.
func Available(t testing.TB) {
	t.Helper()
	for _, p := range []string{Autoctl, filepath.Join(BinDir, "pg_ctl")} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("pg_auto_failover is not installed (%v); scripts/deps.sh pg-auto-failover installs it", err)
		}
	}
}

// Start makes the formation and waits until it has a primary and a
// secondary; node_1 is made first and so starts as the primary. Everything
// is stopped and removed when the test ends.
func Start(t testing.TB, timeout time.Duration) *Formation {
	t.Helper()
	Available(t)
	f, err := newFormation()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.stop)
	f.monitorPort = testport.Free(t)
	for i := range f.Nodes {
		name := "node_" + strconv.Itoa(i+1)
		f.Nodes[i] = &Node{Name: name, Port: testport.Free(t), Dir: filepath.Join(f.dir, name)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	began := time.Now()
	if err := f.start(ctx); err != nil {
		t.Fatalf("pg_auto_failover formation: %v\n%s", err, f.Logs())
	}
	t.Logf("pg_auto_failover formation up in %v: monitor on %d, nodes on %d and %d",
		time.Since(began).Round(time.Millisecond), f.monitorPort, f.Nodes[0].Port, f.Nodes[1].Port)
	return f
}

// newFormation makes the formation's directory, which the postgres user
// must own and reach.
func newFormation() (*Formation, error) {
	dir, err := os.MkdirTemp("", "cobble-formation-")
	if err != nil {
		return nil, err
	}
	f := &Formation{dir: dir}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, pg_autoctl needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		f.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	f.env = []string{"PATH=" + BinDir + ":/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "share"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run")}
	return f, nil
}

// MonitorURL is the monitor's connection URL.
func (f *Formation) MonitorURL() string {
	return fmt.Sprintf("postgres://autoctl_node@%s/pg_auto_failover?sslmode=disable", testport.Addr(f.monitorPort))
}

// URL is the multi-host URL that follows the primary, as user postgres.
func (f *Formation) URL() string {
	return fmt.Sprintf("postgres://postgres@%s,%s/%s?target_session_attrs=read-write&sslmode=disable",
		f.Nodes[0].Addr(), f.Nodes[1].Addr(), DBName)
}

// start runs the monitor, then node_1, and once the monitor knows node_1,
// node_2.
func (f *Formation) start(ctx context.Context) error {
	var err error
	f.monitor, err = f.run("monitor", "create", "monitor", "--pgdata", filepath.Join(f.dir, "monitor"),
		"--pgport", strconv.Itoa(f.monitorPort))
	if err != nil {
		return err
	}
	if err := poll(ctx, "the monitor", func() error { _, err := f.States(ctx); return err }); err != nil {
		return err
	}
	if err := f.tuneMonitor(ctx); err != nil {
		return err
	}
	for i, n := range f.Nodes {
		if n.proc, err = f.run(n.Name, "create", "postgres", "--pgdata", n.Dir, "--pgport", strconv.Itoa(n.Port),
			"--dbname", DBName, "--name", n.Name, "--monitor", f.MonitorURL()); err != nil {
			return err
		}
		if i == 0 {
			err = poll(ctx, "node_1 to run alone", func() error { return f.want(ctx, map[string]string{n.Name: "single"}) })
			if err != nil {
				return err
			}
		}
	}
	return f.WaitStates(ctx, map[string]string{f.Nodes[0].Name: "primary", f.Nodes[1].Name: "secondary"})
}

// run starts pg_autoctl with args, and --run, as a process of its own.
func (f *Formation) run(name string, args ...string) (*process, error) {
	args = append(args, "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl",
		"--pgctl", filepath.Join(BinDir, "pg_ctl"), "--run")
	cmd := exec.Command(Autoctl, args...)
	cmd.Env, cmd.Dir = f.env, f.dir
	cmd.SysProcAttr = f.procAttr()
	return startProcess(cmd, filepath.Join(f.dir, name+".log"))
}

// procAttr runs pg_autoctl in a process group of its own, as f.cred, and
// stops it (and so its PostgreSQL) should the test die without cleaning up.
func (f *Formation) procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: f.cred, Pdeathsig: syscall.SIGTERM}
}

// stop ends every pg_autoctl with its PostgreSQL and removes the directory.
func (f *Formation) stop() {
	var procs []*process
	for _, n := range f.Nodes {
		if n != nil && n.proc != nil {
			procs = append(procs, n.proc)
		}
	}
	if f.monitor != nil {
		procs = append(procs, f.monitor)
	}
	for _, p := range procs {
		if !p.stop() {
			fmt.Fprintf(os.Stderr, "pgformation: pg_autoctl (pid %d) did not end after SIGKILL; left running\n", p.cmd.Process.Pid)
		}
	}
	os.RemoveAll(f.dir)
}

// Logs returns the keepers' and the monitor's logs, for a failing test.
func (f *Formation) Logs() string {
	var s string
	for _, name := range []string{"monitor", "node_1", "node_2", "node_1-rejoin", "node_2-rejoin"} {
		b, err := os.ReadFile(filepath.Join(f.dir, name+".log"))
		if err != nil {
			continue
		}
		s += fmt.Sprintf("--- pg_autoctl %s (last lines)\n%s\n", name, tail(string(b), 40))
	}
	return s
}

// Crash kills n's pg_autoctl and its PostgreSQL, postmaster first, with
// SIGKILL, as when n's machine dies: the monitor then hears from neither.
// (With its keeper alive, a killed postmaster is restarted within a second,
// and the monitor may keep it primary.) Rejoin brings it back.
func (n *Node) Crash() error {
	if err := n.KillPostmaster(); err != nil {
		return err
	}
	if err := syscall.Kill(-n.proc.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("%s: %w", n.Name, err)
	}
	select {
	case <-n.proc.exited:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s: pg_autoctl did not end within 10 s of SIGKILL", n.Name)
	}
}

// Rejoin runs n's keeper again after Crash, as when its machine is back:
// it rewinds n and makes it the new primary's secondary.
func (f *Formation) Rejoin(n *Node) error {
	n.proc.log.Close()
	cmd := exec.Command(Autoctl, "run", "--pgdata", n.Dir)
	cmd.Env, cmd.Dir = f.env, f.dir
	cmd.SysProcAttr = f.procAttr()
	p, err := startProcess(cmd, filepath.Join(f.dir, n.Name+"-rejoin.log"))
	if err != nil {
		return err
	}
	n.proc = p
	return nil
}

// KillPostmaster kills n's postmaster with SIGKILL; its keeper lives on and
// restarts it.
func (n *Node) KillPostmaster() error {
	pid, err := n.postmasterPID()
	if err != nil {
		return err
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// postmasterPID reads the first line of the node's postmaster.pid.
func (n *Node) postmasterPID() (int, error) {
	b, err := os.ReadFile(filepath.Join(n.Dir, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", n.Name, err)
	}
	for i, c := range b {
		if c == '\n' {
			b = b[:i]
			break
		}
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s: postmaster.pid begins %q", n.Name, b)
	}
	return pid, nil
}

// Query runs sql on n alone and scans its one row into dest.
func (n *Node) Query(ctx context.Context, sql string, dest ...any) error {
	conn, err := pgx.Connect(ctx, n.URL())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.QueryRow(ctx, sql).Scan(dest...)
}
