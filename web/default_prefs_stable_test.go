package web_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// replyPrefs is what a reply tells a client of its preferences: the
// <global_preferences> block and the <host_venue>, as bytes ("" for each
// when absent).
var replyPrefs = regexp.MustCompile(`(?s)<global_preferences>.*</global_preferences>|<host_venue>.*?</host_venue>`)

// Adding, renaming, changing and deleting a named location never changes
// the preferences a computer at Default receives: the reply's
// <global_preferences> and <host_venue> stay the same bytes, whether the
// volunteer chose Default's settings or never did (then the computer keeps
// its own, and the reply has neither). A computer at the named location
// gets its venue.
func TestLocationChangesLeaveDefaultComputersAlone(t *testing.T) {
	t.Parallel()
	for _, chosen := range []bool{false, true} {
		name := map[bool]string{false: "never chosen", true: "chosen"}[chosen]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			ctx := context.Background()
			u := e.user("vol@example.org", "long-enough")
			if chosen {
				if err := e.store.Computers.SetComputePrefs(ctx, u.ID, accounting.PresetLowPower, accounting.ComputePrefs{}); err != nil {
					t.Fatal(err)
				}
			}
			atDefault := func() string {
				t.Helper()
				status, r := e.rpc(fixture(t, "1-join.request.xml", "vol@example.org", "long-enough"))
				if status != http.StatusOK || r.ErrorNum != 0 {
					t.Fatalf("RPC: status %d error %d %q", status, r.ErrorNum, r.ErrorMsg)
				}
				found := replyPrefs.FindAllString(r.Raw, -1)
				out := ""
				for _, f := range found {
					out += f + "\n"
				}
				return out
			}
			before := atDefault()
			if chosen != (before != "") {
				t.Fatalf("before any location, the preferences sent:\n%s", before)
			}
			for _, c := range []struct {
				what   string
				change func() error
			}{
				{"add home", func() error { return e.store.Computers.SaveLocation(ctx, u.ID, "home", "") }},
				{"add Büro", func() error { return e.store.Computers.SaveLocation(ctx, u.ID, "Büro", "") }},
				{"rename home", func() error { return e.store.Computers.SaveLocation(ctx, u.ID, "Laptop café", "home") }},
				{"Büro maximum", func() error {
					return e.store.Computers.SetLocationPrefs(ctx, u.ID, "Büro", accounting.PresetMaximum, accounting.ComputePrefs{})
				}},
				{"delete Büro", func() error { return e.store.Computers.DeleteLocation(ctx, u.ID, "Büro") }},
			} {
				time.Sleep(5 * time.Millisecond) // now() moves on
				if err := c.change(); err != nil {
					t.Fatalf("%s: %v", c.what, err)
				}
				if after := atDefault(); after != before {
					t.Errorf("%s changed what a computer at Default receives:\nbefore:\n%s\nafter:\n%s", c.what, before, after)
				}
			}
			var hostID int64
			if err := e.pool.QueryRow(ctx, `SELECT id FROM hosts`).Scan(&hostID); err != nil {
				t.Fatal(err)
			}
			if err := e.store.Computers.SetComputerLocation(ctx, u.ID, hostID, "Laptop café"); err != nil {
				t.Fatal(err)
			}
			moved := atDefault()
			for _, want := range []string{`<venue name="Laptop café">`, "<host_venue>Laptop café</host_venue>"} {
				if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(moved) {
					t.Errorf("at Laptop café, the computer is sent no %s:\n%s", want, moved)
				}
			}
		})
	}
}
