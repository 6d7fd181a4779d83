package pgcluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// initdb makes a new cluster in the empty c.Dir.
func (c *Cluster) initdb(ctx context.Context) error {
	began := time.Now()
	out, err := c.run(ctx, "initdb",
		"-D", c.Dir,
		"-U", Superuser,
		"--auth=trust",
		"--encoding=UTF8",
		"--no-locale",
		"--no-sync",
	)
	if err != nil {
		// Leave dir empty, as it was, so that the next start runs initdb
		// again rather than taking a half-made cluster for a cluster.
		if entries, readErr := os.ReadDir(c.Dir); readErr == nil {
			for _, e := range entries {
				_ = os.RemoveAll(filepath.Join(c.Dir, e.Name()))
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("pgcluster: initdb in %s: %w", c.Dir, context.Cause(ctx))
		}
		return fmt.Errorf("pgcluster: initdb in %s: %w\n%s", c.Dir, err, out)
	}
	fmt.Fprintf(c.log, "pgcluster: initialised a cluster in %s in %v\n", c.Dir, time.Since(began).Round(time.Millisecond))
	return nil
}

// start starts the server on a free port, trying again with another port if
// something else took the chosen one meanwhile.
func (c *Cluster) start(ctx context.Context, settings map[string]string) error {
	logFile, err := os.OpenFile(c.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgcluster: server log: %w", err)
	}
	defer logFile.Close() // The server keeps its own copy of the descriptor.

	const tries = 3
	for try := 1; ; try++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		err = c.startOn(ctx, port, settings, logFile)
		if err == nil {
			c.Port = port
			return nil
		}
		if try == tries || ctx.Err() != nil || !portTaken(port) {
			return err
		}
		fmt.Fprintf(c.log, "pgcluster: port %d was taken meanwhile; trying another\n", port)
	}
}

// startOn runs pg_ctl start for port and waits until the server accepts
// connections.
func (c *Cluster) startOn(ctx context.Context, port int, settings map[string]string, logFile *os.File) error {
	began := time.Now()
	logStart, _ := logFile.Seek(0, io.SeekEnd)

	// pg_ctl hands -o to the server through /bin/sh, hence the quoting.
	opts := []string{
		"-c " + shellQuote("listen_addresses=127.0.0.1"),
		"-c " + shellQuote("port="+strconv.Itoa(port)),
		"-c " + shellQuote("unix_socket_directories="),
	}
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		opts = append(opts, "-c "+shellQuote(name+"="+settings[name]))
	}
	cmd := c.command(ctx, "pg_ctl", "start",
		"-D", c.Dir,
		"-w", "-t", strconv.Itoa(int(startTimeout/time.Second)),
		"-s",
		"-o", strings.Join(opts, " "),
	)
	// Without -l, pg_ctl leaves the server's output on its own standard
	// output: the log file, opened here so that the server's user needs no
	// right to write beside the data directory.
	cmd.Stdout = logFile
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second

	err := cmd.Run()
	if err == nil {
		err = c.waitReady(ctx, port)
	}
	if err != nil {
		c.abandon(port)
		if ctx.Err() != nil {
			return fmt.Errorf("pgcluster: starting the cluster in %s: %w", c.Dir, context.Cause(ctx))
		}
		// Another Start of the same cluster may have won the race.
		if pf, ok, _ := readPidFile(c.Dir); ok && pf.port != port && isPostmasterOf(pf.pid, c.Dir) {
			return alreadyRunning(c.Dir, c.bin, pf)
		}
		return fmt.Errorf("pgcluster: starting the cluster in %s on port %d: %w\n%s%s",
			c.Dir, port, err, stderr.Bytes(), c.logSince(logStart))
	}
	fmt.Fprintf(c.log, "pgcluster: started the cluster in %s on 127.0.0.1:%d in %v (log: %s)\n",
		c.Dir, port, time.Since(began).Round(time.Millisecond), c.LogFile)
	return nil
}

// waitReady connects until the server answers, for at most startTimeout.
func (c *Cluster) waitReady(ctx context.Context, port int) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	u := urlFor(port, "postgres")
	for {
		conn, err := pgx.Connect(ctx, u)
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server does not accept connections: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// abandon stops a server that Start began but could not finish starting,
// such as when ctx ended meanwhile. A server that is not the one started on
// port (another cobble dev's, say) is left alone.
func (c *Cluster) abandon(port int) {
	pf, ok, err := readPidFile(c.Dir)
	if err != nil || !ok || pf.port != port {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	_, _ = c.run(ctx, "pg_ctl", "stop", "-D", c.Dir, "-m", "immediate", "-w", "-s")
}

// logSince returns what the server logged from offset on, at most its last
// 4 KiB, to explain a failed start.
func (c *Cluster) logSince(offset int64) string {
	data, err := os.ReadFile(c.LogFile)
	if err != nil || int64(len(data)) <= offset {
		return ""
	}
	data = data[offset:]
	if len(data) > 4096 {
		data = data[len(data)-4096:]
	}
	return "server log (" + c.LogFile + "):\n" + string(data)
}
