package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/testdb"
)

// TestSteadyStatePlans: every statement of a recorded steady-state RPC,
// planned as the RPC plans it (a generic plan) on a database of 200
// volunteers × 5 hosts without statistics, as a new or growing installation
// has, finds its rows through indexes: no sequential scan of a table that
// grows with the volunteers. Migration 018 took the uniqueness of the two
// tokens away and with it these plans; the RPC's throughput halved.
func TestSteadyStatePlans(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 1,000 hosts")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cfg := config{dbURL: testdb.NewURL(t), users: 200, hostsPerUser: 5, concurrency: 1, timeout: 30 * time.Second}
	db, err := openDatabase(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer db.close(io.Discard)
	tgt, err := startTarget(ctx, cfg, db, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.close(io.Discard)
	pop, err := createPopulation(ctx, db.pool, tgt.store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Every host's project rows, as the baseline RPCs would leave them.
	if _, err := db.pool.Exec(ctx, `
		INSERT INTO host_projects (host_id, user_id, project_id, assigned, attached, project_hostid)
		SELECT h.id, h.user_id, p.id, true, true, h.id * 10 + p.n
		FROM hosts h, unnest($1::bigint[]) WITH ORDINALITY AS p (id, n)`, projectIDs(pop)); err != nil {
		t.Fatal(err)
	}
	c := newRPCClient(tgt.urls, 1, cfg.timeout)
	defer c.close()
	one := &population{hosts: pop.hosts[:1], projects: pop.projects}
	// The first RPC stores a baseline and reads the volunteer's credit on
	// every host; the second credits, and takes that credit from memory.
	var trips transaction
	for range 2 {
		hosts, _, err := recordRPCs(ctx, cfg, c, tgt.recorder, one)
		if err != nil || len(hosts) != 1 {
			t.Fatalf("recording: %d hosts, %v", len(hosts), err)
		}
		trips = append(trips, hosts[0].recorded...)
	}
	checked := 0
	for _, rt := range trips {
		for _, st := range rt {
			if !strings.HasPrefix(strings.TrimSpace(st.sql), "SELECT set_config") && !isWord(st.sql, "BEGIN") &&
				!isWord(st.sql, "COMMIT") {
				checked++
				for _, scan := range seqScans(t, ctx, db, st.sql) {
					t.Errorf("the generic plan of %q scans %s sequentially", shorten(st.sql, 90), scan)
				}
			}
		}
	}
	if checked < 6 {
		t.Errorf("checked the plans of %d statements; a steady-state RPC runs more", checked)
	}
}

func projectIDs(pop *population) []int64 {
	ids := make([]int64, len(pop.projects))
	for i, p := range pop.projects {
		ids[i] = p.ID
	}
	return ids
}

var parameter = regexp.MustCompile(`\$(\d+)`)

// seqScans returns the tables that the generic plan of sql scans
// sequentially.
func seqScans(t *testing.T, ctx context.Context, db *database, sql string) []string {
	t.Helper()
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	params := 0
	for _, m := range parameter.FindAllStringSubmatch(sql, -1) {
		var n int
		fmt.Sscan(m[1], &n)
		params = max(params, n)
	}
	nulls := strings.TrimSuffix(strings.Repeat("NULL, ", params), ", ")
	var plan string
	_, err = conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`)
	if err == nil {
		_, err = conn.Exec(ctx, `PREPARE planned AS `+sql)
	}
	if err == nil {
		defer conn.Exec(context.WithoutCancel(ctx), `DEALLOCATE planned`)
		execute := "EXECUTE planned"
		if params > 0 {
			execute += "(" + nulls + ")"
		}
		err = conn.QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+execute).Scan(&plan)
	}
	if err != nil {
		t.Fatalf("planning %q: %v", shorten(sql, 90), err)
	}
	var nodes []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(plan), &nodes); err != nil {
		t.Fatal(err)
	}
	var scans []string
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.NodeType == "Seq Scan" {
			scans = append(scans, n.Relation)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n.Plan)
	}
	return scans
}

// planNode is a node of EXPLAIN's JSON plan.
type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Plans    []planNode `json:"Plans"`
}
