package boinctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Cmd runs `boinccmd --host 127.0.0.1:PORT --passwd PASSWORD args...` and
// returns its combined stdout and stderr.
//
// The run is bounded by ctx and by CmdTimeout. On a timeout the error wraps
// context.DeadlineExceeded and the output holds what boinccmd printed so
// far: stdout is line-buffered through stdbuf(1) when it is installed, so
// the lines of a boinccmd that is still polling are not lost. A non-zero
// exit status (boinccmd exits non-zero only when it cannot connect or
// authenticate, or the GUI RPC itself fails) is returned as an error
// wrapping *exec.ExitError.
func (c *Client) Cmd(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CmdTimeout)
	defer cancel()
	argv := append([]string{
		"--host", "127.0.0.1:" + strconv.Itoa(c.RPCPort),
		"--passwd", c.Password,
	}, args...)
	name := c.boinccmd
	if c.stdbuf != "" {
		argv = append([]string{"-oL", c.boinccmd}, argv...)
		name = c.stdbuf
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Env = clientEnv()
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("boinccmd %s: %w", strings.Join(args, " "), ctx.Err())
	}
	if err != nil {
		return out.String(), fmt.Errorf("boinccmd %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), nil
}

// JoinAcctMgr runs `boinccmd --join_acct_mgr URL NAME PASSWORD` and
// returns its output (see ParseAMOutput). The client canonicalizes URL
// (adding a trailing slash) and POSTs to URL + "rpc.php". If the client
// answers "poll status: retry" (an account manager RPC is already in
// flight) the command is repeated until it is taken, ctx ends or
// CmdTimeout has passed.
func (c *Client) JoinAcctMgr(ctx context.Context, url, name, password string) (string, error) {
	return c.amRPC(ctx, "--join_acct_mgr", url, name, password)
}

// SyncAcctMgr runs `boinccmd --acct_mgr sync`, which makes the client do an
// account manager RPC now, and returns its output (see ParseAMOutput). Like
// JoinAcctMgr it repeats the command while the client answers "retry".
func (c *Client) SyncAcctMgr(ctx context.Context) (string, error) {
	return c.amRPC(ctx, "--acct_mgr", "sync")
}

func (c *Client) amRPC(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CmdTimeout)
	defer cancel()
	for {
		out, err := c.Cmd(ctx, args...)
		if err != nil || ParseAMOutput(out).Status != "retry" {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, fmt.Errorf("boinccmd %s: client still busy: %w", strings.Join(args, " "), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// AcctMgrInfo runs `boinccmd --acct_mgr info`.
func (c *Client) AcctMgrInfo(ctx context.Context) (string, error) {
	return c.Cmd(ctx, "--acct_mgr", "info")
}

// LeaveAcctMgr runs `boinccmd --acct_mgr detach`.
func (c *Client) LeaveAcctMgr(ctx context.Context) (string, error) {
	return c.Cmd(ctx, "--acct_mgr", "detach")
}

// ProjectStatus runs `boinccmd --get_project_status`.
func (c *Client) ProjectStatus(ctx context.Context) (string, error) {
	return c.Cmd(ctx, "--get_project_status")
}

// Projects runs `boinccmd --get_project_status` and parses its output.
func (c *Client) Projects(ctx context.Context) ([]ProjectStatus, error) {
	out, err := c.ProjectStatus(ctx)
	if err != nil {
		return nil, err
	}
	return ParseProjectStatus(out), nil
}

// Log returns the client's event log so far (stdoutdae.txt in Dir), or ""
// if it does not exist yet.
func (c *Client) Log() string {
	b, err := os.ReadFile(filepath.Join(c.Dir, "stdoutdae.txt"))
	if err != nil {
		return ""
	}
	return string(b)
}

// LogCount returns how many times substr occurs in the client's event log.
func (c *Client) LogCount(substr string) int {
	return strings.Count(c.Log(), substr)
}

// WaitLog waits until the client's event log contains substr at least n
// times, polling every 100 ms. It returns an error wrapping ctx.Err() if
// ctx ends first.
func (c *Client) WaitLog(ctx context.Context, substr string, n int) error {
	for {
		if c.LogCount(substr) >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("client log has %d of %d %q: %w", c.LogCount(substr), n, substr, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
