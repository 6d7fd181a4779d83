package pgformation

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// State is a node's state as the monitor has it.
type State struct {
	Reported, Goal string
}

func (s State) String() string {
	if s.Reported == s.Goal {
		return s.Reported
	}
	return s.Reported + "→" + s.Goal
}

// States returns each node's state, by name, from the monitor.
func (f *Formation) States(ctx context.Context) (map[string]State, error) {
	conn, err := pgx.Connect(ctx, f.MonitorURL())
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, _ := conn.Query(ctx, `SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node`)
	states := map[string]State{}
	var name string
	var s State
	_, err = pgx.ForEachRow(rows, []any{&name, &s.Reported, &s.Goal}, func() error {
		states[name] = s
		return nil
	})
	return states, err
}

// want returns nil when every node named in want has reached its state
// there (reported and assigned).
func (f *Formation) want(ctx context.Context, want map[string]string) error {
	states, err := f.States(ctx)
	if err != nil {
		return err
	}
	for name, w := range want {
		if s := states[name]; s.Reported != w || s.Goal != w {
			return fmt.Errorf("%w: states %s", errNotYet, describe(states))
		}
	}
	return nil
}

// describe lists states by node name.
func describe(states map[string]State) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(states)) {
		parts = append(parts, name+" "+states[name].String())
	}
	return strings.Join(parts, ", ")
}

// WaitStates waits until each node named in want is in the state given
// there. Meanwhile it asks the primary for a checkpoint every second: a
// joining node's base backup otherwise waits for a spread checkpoint,
// minutes long.
func (f *Formation) WaitStates(ctx context.Context, want map[string]string) error {
	last := time.Now()
	return poll(ctx, "states "+fmt.Sprint(want), func() error {
		err := f.want(ctx, want)
		if err != nil && time.Since(last) > time.Second {
			last = time.Now()
			f.checkpoint(ctx)
		}
		return err
	})
}

// checkpoint runs CHECKPOINT on each node that is not in recovery.
func (f *Formation) checkpoint(ctx context.Context) {
	for _, n := range f.Nodes {
		var recovery bool
		if n.Query(ctx, `SELECT pg_is_in_recovery()`, &recovery) == nil && !recovery {
			n.Query(ctx, `CHECKPOINT`)
		}
	}
}

// Primary returns the node the monitor has as primary, and the other.
func (f *Formation) Primary(ctx context.Context) (primary, secondary *Node, err error) {
	states, err := f.States(ctx)
	if err != nil {
		return nil, nil, err
	}
	for i, n := range f.Nodes {
		if s := states[n.Name]; s.Reported == "primary" && s.Goal == "primary" {
			return n, f.Nodes[1-i], nil
		}
	}
	return nil, nil, fmt.Errorf("no primary: %s", describe(states))
}

// MonitorSettings are the monitor's health-check settings for tests, in
// milliseconds: each node is checked every second; a primary that failed
// its checks and has not reported for 5 s is failed over; and the monitor
// waits 5 s, not 30, for a primary it cannot reach to have demoted itself
// before it promotes the secondary. With the defaults (checks every 20 s,
// 20 s without reports, 30 s to demote) the loss of the primary's machine
// costs 35 s and more of unavailability; the test's formation is dead, not
// cut off, so the shorter wait is safe there.
var MonitorSettings = map[string]int{
	"pgautofailover.health_check_period":               1000,
	"pgautofailover.health_check_timeout":              1000,
	"pgautofailover.health_check_max_retries":          1,
	"pgautofailover.health_check_retry_delay":          500,
	"pgautofailover.node_considered_unhealthy_timeout": 5000,
	"pgautofailover.primary_demote_timeout":            5000,
}

// tuneMonitor applies MonitorSettings on the monitor.
func (f *Formation) tuneMonitor(ctx context.Context) error {
	url := strings.Replace(f.MonitorURL(), "autoctl_node@", "postgres@", 1)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, name := range slices.Sorted(maps.Keys(MonitorSettings)) {
		if _, err := conn.Exec(ctx, fmt.Sprintf(`ALTER SYSTEM SET %s = %d`, name, MonitorSettings[name])); err != nil {
			return fmt.Errorf("monitor: %w", err)
		}
	}
	_, err = conn.Exec(ctx, `SELECT pg_reload_conf()`)
	return err
}

// poll calls check every 200 ms until it returns nil or ctx ends.
func poll(ctx context.Context, what string, check func() error) error {
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %v)", what, ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

var errNotYet = errors.New("not yet")
