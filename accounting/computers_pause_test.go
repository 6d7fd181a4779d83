package accounting_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// pauseSetup is a volunteer with two joined computers on one project.
type pauseSetup struct {
	s            *accounting.Store
	user         accounting.User
	one, two     accounting.SyncResult
	syncOne      func(now time.Time) accounting.SyncResult
	syncTwo      func(now time.Time) accounting.SyncResult
	project      accounting.Project
	computerPage func(hostID int64) accounting.Computer
}

func newPauseSetup(t *testing.T) pauseSetup {
	t.Helper()
	ctx := context.Background()
	s := newStore(t)
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	st := pauseSetup{s: s, user: u, project: p}
	st.one, _ = joinedHost(t, s, "ada@example.org", "long-enough", "cpid-1", p)
	st.two, _ = joinedHost(t, s, "ada@example.org", "long-enough", "cpid-2", p)
	syncer := func(joined accounting.SyncResult, cpid string) func(time.Time) accounting.SyncResult {
		return func(now time.Time) accounting.SyncResult {
			t.Helper()
			req := joinRequest("", "", cpid)
			req.Authenticator, req.HostToken, req.Now = joined.Authenticator, joined.HostToken, now
			req.Projects = []accounting.ProjectReport{{URL: p.URL, AttachedViaAM: true}}
			res, err := s.Sync.Sync(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	st.syncOne, st.syncTwo = syncer(st.one, "cpid-1"), syncer(st.two, "cpid-2")
	st.computerPage = func(hostID int64) accounting.Computer {
		t.Helper()
		c, err := s.Computers.Computer(ctx, u.ID, hostID, accounting.CivilDay(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return st
}

func (st pauseSetup) set(t *testing.T, hostID int64, mode, until string) error {
	t.Helper()
	return st.s.Computers.SetPause(context.Background(), st.user.ID, hostID,
		accounting.PauseForm{Mode: mode, Until: until}, time.Now(), "UTC")
}

func hasMessage(res accounting.SyncResult, id string) bool {
	for _, m := range res.Messages {
		if m.ID == id {
			return true
		}
	}
	return false
}

// Winding down, pausing and resuming one computer reach that computer's
// next RPC, and only its: the other computer works as usual. A resume
// after a pause is said once (<suspend>0</suspend>), then no more.
func TestPauseReachesTheComputersRPC(t *testing.T) {
	t.Parallel()
	st := newPauseSetup(t)
	now := time.Now()
	if err := st.set(t, st.one.HostID, "wind_down", ""); err != nil {
		t.Fatal(err)
	}
	res := st.syncOne(now)
	if res.Pause != (accounting.PauseReply{Mode: accounting.PauseWindDown}) || !hasMessage(res, "pause.rpc_wind_down") {
		t.Errorf("wind down: reply %+v, messages %v", res.Pause, res.Messages)
	}
	if other := st.syncTwo(now); other.Pause != (accounting.PauseReply{Mode: accounting.PauseNone}) || len(other.Messages) > 0 {
		t.Errorf("the other computer: %+v, %v", other.Pause, other.Messages)
	}
	if c := st.computerPage(st.one.HostID); c.PauseMode != accounting.PauseWindDown || c.PauseUntil != nil {
		t.Errorf("the computer page shows %q until %v", c.PauseMode, c.PauseUntil)
	}

	if err := st.set(t, st.one.HostID, "pause", ""); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the pause stays until resumed
		if res := st.syncOne(now); res.Pause != (accounting.PauseReply{Mode: accounting.PausePause}) || !hasMessage(res, "pause.rpc_pause") {
			t.Errorf("pause: reply %+v, messages %v", res.Pause, res.Messages)
		}
	}
	if err := st.set(t, st.one.HostID, "resume", ""); err != nil {
		t.Fatal(err)
	}
	if res := st.syncOne(now); res.Pause != (accounting.PauseReply{Mode: accounting.PauseNone, Resume: true}) || !hasMessage(res, "pause.rpc_resumed") {
		t.Errorf("first RPC after resume: %+v, %v", res.Pause, res.Messages)
	}
	if res := st.syncOne(now); res.Pause != (accounting.PauseReply{Mode: accounting.PauseNone}) || len(res.Messages) > 0 {
		t.Errorf("second RPC after resume: %+v, %v", res.Pause, res.Messages)
	}
}

// A pause for all computers reaches each; an until date ends it at the
// first RPC after that day, which says so and clears it.
func TestPauseAllUntilADay(t *testing.T) {
	t.Parallel()
	st := newPauseSetup(t)
	today := time.Now().UTC().Format(time.DateOnly)
	if err := st.set(t, 0, "pause", today); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, sync := range []func(time.Time) accounting.SyncResult{st.syncOne, st.syncTwo} {
		res := sync(now)
		if res.Pause.Mode != accounting.PausePause || !hasMessage(res, "pause.rpc_pause_until") {
			t.Errorf("paused until today: %+v, %v", res.Pause, res.Messages)
		}
	}
	c := st.computerPage(st.two.HostID)
	if c.PauseLastDay == nil || c.PauseLastDay.Format(time.DateOnly) != today {
		t.Errorf("the page's last day: %v, want %s", c.PauseLastDay, today)
	}
	later := now.Add(48 * time.Hour)
	res := st.syncOne(later)
	if res.Pause != (accounting.PauseReply{Mode: accounting.PauseNone, Resume: true}) || !hasMessage(res, "pause.rpc_ended") {
		t.Errorf("after the until day: %+v, %v", res.Pause, res.Messages)
	}
	if c := st.computerPage(st.one.HostID); c.PauseMode != accounting.PauseNone || c.PauseUntil != nil {
		t.Errorf("the ended pause is still stored: %q until %v", c.PauseMode, c.PauseUntil)
	}
	if res := st.syncOne(later); res.Pause != (accounting.PauseReply{Mode: accounting.PauseNone}) || len(res.Messages) > 0 {
		t.Errorf("the RPC after the end: %+v, %v", res.Pause, res.Messages)
	}
	if c := st.computerPage(st.two.HostID); c.PauseMode != accounting.PausePause {
		t.Errorf("the other computer, not yet heard from, is %q", c.PauseMode)
	}
}

// Bad pause forms are refused with the field's message and store
// nothing; another volunteer's computer is not found.
func TestPauseRefusesBadInput(t *testing.T) {
	t.Parallel()
	st := newPauseSetup(t)
	day := func(days int) string { return time.Now().UTC().AddDate(0, 0, days).Format(time.DateOnly) }
	for _, tc := range []struct{ mode, until, field string }{
		{"sleep", "", "mode"},
		{"", "", "mode"},
		{"pause", day(-1), "until"},
		{"wind_down", day(400), "until"},
		{"pause", "2026-13-01", "until"},
		{"pause", "01.12.2026", "until"},
		{"pause", day(1) + "x", "until"},
	} {
		err := st.set(t, st.one.HostID, tc.mode, tc.until)
		var invalid *accounting.ValidationError
		if !errors.As(err, &invalid) || invalid.Fields[tc.field].IsZero() {
			t.Errorf("mode %q until %q: %v, want a message on %s", tc.mode, tc.until, err, tc.field)
		}
	}
	if c := st.computerPage(st.one.HostID); c.PauseMode != accounting.PauseNone || c.PauseUntil != nil {
		t.Errorf("a refused form stored %q until %v", c.PauseMode, c.PauseUntil)
	}
	other, err := st.s.Accounts.CreateUser(context.Background(), accounting.NewUser{Email: "bob@example.org", Password: "long-enough"})
	if err != nil {
		t.Fatal(err)
	}
	err = st.s.Computers.SetPause(context.Background(), other.ID, st.one.HostID,
		accounting.PauseForm{Mode: "pause"}, time.Now(), "UTC")
	if !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("another volunteer's computer: %v, want ErrNotFound", err)
	}
	if c := st.computerPage(st.one.HostID); c.PauseMode != accounting.PauseNone {
		t.Errorf("another volunteer paused the computer: %q", c.PauseMode)
	}
	if err := st.set(t, st.one.HostID, "wind_down", day(366)); err != nil || !strings.Contains(day(366), "-") {
		t.Errorf("a date a year ahead: %v", err)
	}
}

// Resuming a computer that was winding down says so at its next RPC, once,
// without <suspend>0</suspend> (nothing was suspended); a dated pause's
// message writes the day as the volunteer's language does, not as
// YYYY-MM-DD (issue 45, item 16).
func TestResumeAfterWindDownIsSaid(t *testing.T) {
	t.Parallel()
	st := newPauseSetup(t)
	now := time.Now()
	if err := st.set(t, st.one.HostID, "wind_down", ""); err != nil {
		t.Fatal(err)
	}
	st.syncOne(now)
	if err := st.set(t, st.one.HostID, "resume", ""); err != nil {
		t.Fatal(err)
	}
	if res := st.syncOne(now); res.Pause != (accounting.PauseReply{Mode: accounting.PauseNone}) || !hasMessage(res, "pause.rpc_resumed") {
		t.Errorf("first RPC after resuming a wind-down: %+v, %v", res.Pause, res.Messages)
	}
	if res := st.syncOne(now); len(res.Messages) > 0 {
		t.Errorf("second RPC after resume: %v", res.Messages)
	}

	day := now.UTC().AddDate(0, 0, 2)
	if err := st.set(t, st.one.HostID, "pause", day.Format(time.DateOnly)); err != nil {
		t.Fatal(err)
	}
	res := st.syncOne(now)
	en, de := locale.Default().Get("en"), locale.Default().Get("de")
	for _, m := range res.Messages {
		if m.ID != "pause.rpc_pause_until" {
			continue
		}
		for _, l := range []*locale.Lang{en, de} {
			if text := m.In(l); !strings.Contains(text, l.Date(day)) || strings.Contains(text, day.Format(time.DateOnly)) {
				t.Errorf("%s: %q does not write the day as %q", l.Code, text, l.Date(day))
			}
		}
		return
	}
	t.Errorf("the dated pause says no rpc_pause_until: %v", res.Messages)
}
