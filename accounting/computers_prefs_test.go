package accounting_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// Odd stored preferences never fail an RPC: the standard preset stands in,
// and the problem is logged once.
func TestOddStoredPrefsFallBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	var logs bytes.Buffer
	opts := testOptions
	opts.Log = slog.New(slog.NewTextHandler(&logs, nil))
	s := accounting.NewStore(pool, opts)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	if _, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"}); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{`{"max_ncpus_pct": 500}`, `"not an object"`} {
		if _, err := pool.Exec(ctx, `
			INSERT INTO compute_prefs (user_id, preset, prefs) VALUES ($1, 'custom', $2)
			ON CONFLICT (user_id) DO UPDATE SET prefs = EXCLUDED.prefs`, u.ID, raw); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			res, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "long-enough", "cpid-1"))
			if err != nil {
				t.Fatalf("sync with stored %s: %v", raw, err)
			}
			std, _ := accounting.Preset(accounting.PresetStandard)
			if res.Prefs == nil || res.Prefs.MaxCPUsPct != std.MaxCPUsPct || res.Prefs.ModTime.IsZero() {
				t.Errorf("stored %s: got %+v, want the standard preset", raw, res.Prefs)
			}
		}
	}
	if n := strings.Count(logs.String(), "stored preferences unusable"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
}

// Each project newly given to a host records why; kept ones keep theirs.
func TestAssignmentReasonsAreRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, _ := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	bio, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://bio.example.org/", Name: "Bio", Authenticator: "k", Keywords: []int{11}})
	chosen, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://c.example.org/", Name: "C", Authenticator: "k"})
	other, _ := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://d.example.org/", Name: "D", Authenticator: "k"})
	if err := s.Computers.SetKeywordChoices(ctx, u.ID, map[int]accounting.KeywordAnswer{9: "yes"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Computers.SetProjectChoices(ctx, u.ID, map[int64]string{chosen.ID: "always", other.ID: "automatic"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "long-enough", "cpid-1"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Keywords[9] != "yes" {
		t.Errorf("result keywords %v", res.Keywords)
	}
	reasons, err := s.Computers.HostProjectReasons(ctx, res.HostID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]accounting.Reason{chosen.ID: accounting.ReasonAlways, bio.ID: accounting.ReasonKeyword}
	if len(reasons) != 2 || reasons[chosen.ID] != want[chosen.ID] || reasons[bio.ID] != want[bio.ID] {
		t.Errorf("reasons %v, want %v", reasons, want)
	}
	// A later sync keeps them (no churn, reasons unchanged).
	req := joinRequest("ada@example.org", "long-enough", "cpid-1")
	req.Now = time.Now().Add(time.Hour)
	if _, err := s.Sync.Sync(ctx, req); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Computers.HostProjectReasons(ctx, res.HostID); len(again) != 2 || again[bio.ID] != accounting.ReasonKeyword {
		t.Errorf("reasons after a second sync: %v", again)
	}
}

// The steady-state RPC keeps preferences in memory; every way of changing
// them reaches the next RPC, on any instance, and an unchanged version
// keeps serving what was read.
func TestSteadyStateRPCSeesEveryPrefsChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	settings, rpc := accounting.NewStore(pool, testOptions), accounting.NewStore(pool, testOptions)
	u, _ := settings.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	a, _ := settings.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	b, _ := settings.Catalog.AddProject(ctx, accounting.Project{URL: "https://b.example.org/", Name: "B", Authenticator: "k"})
	joined, err := rpc.Sync.Sync(ctx, joinRequest("ada@example.org", "long-enough", "cpid-1"))
	if err != nil {
		t.Fatal(err)
	}
	sync := func(what string) accounting.SyncResult {
		t.Helper()
		req := joinRequest("", "", "cpid-1")
		req.Authenticator, req.HostToken = joined.Authenticator, joined.HostToken
		for _, p := range []accounting.Project{a, b} {
			req.Projects = append(req.Projects, accounting.ProjectReport{URL: p.URL, AttachedViaAM: true})
		}
		res, err := rpc.Sync.Sync(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return res
	}
	action := func(res accounting.SyncResult, id int64) accounting.Action {
		for _, as := range res.Assignments {
			if as.Project.ID == id {
				return as.Action
			}
		}
		return 0
	}
	if res := sync("before any choice"); res.Prefs != nil || len(res.Keywords) != 0 || action(res, b.ID) != accounting.Work {
		t.Fatalf("before any choice: prefs %+v, keywords %v, B %v", res.Prefs, res.Keywords, action(res, b.ID))
	}

	check := func(what string, change func() error, ok func(accounting.SyncResult) bool) {
		t.Helper()
		if err := change(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i := range 2 { // the second RPC is served from memory
			if res := sync(what); !ok(res) {
				t.Errorf("%s, RPC %d: prefs %+v, keywords %v, assignments %+v", what, i+1, res.Prefs, res.Keywords, res.Assignments)
			}
		}
	}
	check("keywords", func() error {
		return settings.Computers.SetKeywordChoices(ctx, u.ID, map[int]accounting.KeywordAnswer{11: "yes"})
	},
		func(r accounting.SyncResult) bool { return r.Keywords[11] == "yes" })
	check("low power", func() error {
		return settings.Computers.SetComputePrefs(ctx, u.ID, accounting.PresetLowPower, accounting.ComputePrefs{})
	}, func(r accounting.SyncResult) bool {
		low, _ := accounting.Preset(accounting.PresetLowPower)
		return r.Prefs != nil && r.Prefs.MaxCPUsPct == low.MaxCPUsPct
	})
	check("compute values changed in SQL", func() error {
		_, err := pool.Exec(ctx, `UPDATE compute_prefs SET prefs = jsonb_set(prefs, '{max_ncpus_pct}', '37') WHERE user_id = $1`, u.ID)
		return err
	}, func(r accounting.SyncResult) bool { return r.Prefs != nil && r.Prefs.MaxCPUsPct == 37 })
	check("project B never", func() error {
		return settings.Computers.SetProjectChoices(ctx, u.ID, map[int64]string{b.ID: "never"})
	}, func(r accounting.SyncResult) bool { return action(r, b.ID) == accounting.Detach })
	check("project B cleared", func() error {
		return settings.Computers.SetProjectChoices(ctx, u.ID, map[int64]string{b.ID: "automatic"})
	},
		func(r accounting.SyncResult) bool { return action(r, b.ID) == accounting.Work })
	check("keywords cleared", func() error { return settings.Computers.SetKeywordChoices(ctx, u.ID, nil) },
		func(r accounting.SyncResult) bool { return len(r.Keywords) == 0 })
	check("compute prefs deleted", func() error {
		_, err := pool.Exec(ctx, `DELETE FROM compute_prefs WHERE user_id = $1`, u.ID)
		return err
	}, func(r accounting.SyncResult) bool { return r.Prefs == nil })

	// The triggers that count changes let a volunteer with preferences go.
	if err := settings.Computers.SetKeywordChoices(ctx, u.ID, map[int]accounting.KeywordAnswer{11: "no"}); err != nil {
		t.Fatal(err)
	}
	if err := settings.Accounts.DeleteUser(ctx, u.ID, "long-enough"); err != nil {
		t.Fatalf("delete a volunteer with preferences: %v", err)
	}
}
