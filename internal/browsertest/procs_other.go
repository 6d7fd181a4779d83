//go:build !linux

package browsertest

import (
	"os/exec"
	"time"
)

// setProcAttr does nothing outside Linux; the harness is meant for the
// Debian chromium package.
func setProcAttr(*exec.Cmd) {}

// killGroup does nothing outside Linux: the allocator kills the browser.
func killGroup(int) {}

// killUsing cannot find Chromium's helpers outside Linux.
func killUsing(string) {}

// waitGone cannot find Chromium's helpers outside Linux.
func waitGone(string, time.Duration) []int { return nil }
