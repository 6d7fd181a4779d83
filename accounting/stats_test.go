package accounting_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// hostileTeam is a team name a statistics site must show as text.
const hostileTeam = "</name><script>alert(\"x\")</script>&amp; \u202eevil"

// statsFiles builds the export and returns its four files' bytes.
func statsFiles(t *testing.T, s *accounting.Store, now time.Time) (accounting.StatsExport, map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	ex, err := s.Stats.Export(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range accounting.StatsFileNames {
		var b bytes.Buffer
		err := s.Stats.ReadStatsFile(ctx, name, func(f accounting.StatsFile) (io.Writer, error) {
			if f.Size <= 0 || f.ETag == "" || !f.BuiltAt.Equal(ex.BuiltAt) {
				t.Errorf("%s: %+v, export %+v", name, f, ex)
			}
			return &b, nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files[name] = b.Bytes()
	}
	return ex, files
}

// readRecords reads a gzip export's records with Cobble's own reader.
func readRecords(t *testing.T, gz []byte, root, record string) []boinc.ExportRecord {
	t.Helper()
	sc, err := boinc.NewGzipRecordScanner(bytes.NewReader(gz), root, record)
	if err != nil {
		t.Fatal(err)
	}
	var out []boinc.ExportRecord
	for sc.Next() {
		out = append(out, append(boinc.ExportRecord(nil), sc.Record()...))
	}
	if sc.Err() != nil {
		t.Fatalf("%s: %v", root, sc.Err())
	}
	return out
}

// plain returns the decompressed bytes of every file, for searching.
func plain(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	all := append([]byte(nil), files["tables.xml"]...)
	for _, name := range []string{"user.gz", "team.gz", "host.gz"} {
		zr, err := gzip.NewReader(bytes.NewReader(files[name]))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// addTeam makes a team founded by the volunteer, with confirmed credit on
// the days before through and on a day after it (which no export counts
// yet), and returns its id and its credit through through.
func addTeam(t *testing.T, pool *pgxpool.Pool, founder int64, name string, hidden bool, through time.Time) (int64, float64) {
	t.Helper()
	ctx := context.Background()
	var id int64
	err := pool.QueryRow(ctx, `
		INSERT INTO teams (name, name_key, type, country, url, description, created_by, invite_code, hidden)
		VALUES ($1, lower($1), 6, 'Germany', 'https://team.example/?a=1&b=2', $1, $2,
			translate(substr(md5($1), 1, 26), '0189abcdef', 'mnopqrstuv'), $3) RETURNING id`, name, founder, hidden).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO team_members (user_id, team_id, first_day, founder) VALUES ($1, $2, $3::date - 30, true)`,
		founder, id, through); err != nil {
		t.Fatal(err)
	}
	micro := int64(0)
	for i, g := range []int64{1_500_000, 0, 250_000_123, 7} {
		if _, err := pool.Exec(ctx, `INSERT INTO rollup_team_days (team_id, day, granted_micro, ec_micro) VALUES ($1, $2::date - $3::int, $4, 1)`,
			id, through, 2*i, g); err != nil {
			t.Fatal(err)
		}
		micro += g
	}
	if _, err := pool.Exec(ctx, `INSERT INTO rollup_team_days (team_id, day, granted_micro) VALUES ($1, $2::date + 1, 999000000)`, id, through); err != nil {
		t.Fatal(err)
	}
	return id, float64(micro) / 1e6
}

// recentAverage is RecentAverage of a volunteer's settled days.
func recentAverage(t *testing.T, s *accounting.Store, userID int64, through, now time.Time) float64 {
	t.Helper()
	days, err := s.Ledger.RolledDays(context.Background(), userID, time.Time{}, through)
	if err != nil {
		t.Fatal(err)
	}
	var hist []accounting.TeamDay
	for _, d := range days {
		hist = append(hist, accounting.TeamDay{Day: d.Day, Confirmed: d.Confirmed})
	}
	avg, _ := accounting.RecentAverage(hist, now)
	return avg
}

func number(t *testing.T, r boinc.ExportRecord, name string) float64 {
	t.Helper()
	text, ok := r.Get(name)
	v, err := strconv.ParseFloat(text, 64)
	if !ok || err != nil {
		t.Fatalf("<%s> %q in %v", name, text, r)
	}
	return v
}

// Cobble's own export readers read the export back: the listed volunteer
// with their confirmed credit and BOINC's recent average of their days,
// their team with its confirmed credit and its hostile name as text,
// their computers, and tables.xml's counts; the volunteers not listed
// (not opted in, or opted in with the profile private) are in no file.
func TestStatsExportRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, bob, through, pool := publicFixtureOn(t)
	carol, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "carol@example.org", Name: "Carol", Password: "carols-pass"})
	if err != nil {
		t.Fatal(err)
	}
	for id, p := range map[int64]accounting.PublicProfile{
		ada.ID:   {Handle: "ada-l", Public: true, InStats: true, StatsHosts: true},
		bob.ID:   {Handle: "bob-b", InStats: true, StatsHosts: true}, // opted in, profile private
		carol.ID: {Handle: "carol-c", Public: true, ListMe: true},    // public, not opted in
	} {
		if err := s.Public.SetPublicProfile(ctx, id, p); err != nil {
			t.Fatal(err)
		}
	}
	teamID, teamCredit := addTeam(t, pool, ada.ID, hostileTeam, false, through)
	addTeam(t, pool, carol.ID, "Hidden team", true, through)
	profile, _ := s.Public.PublicProfile(ctx, ada.ID)
	bobs, _ := s.Public.PublicProfile(ctx, bob.ID)

	now := time.Now()
	ex, files := statsFiles(t, s, now)

	users := readRecords(t, files["user.gz"], "users", "user")
	if len(users) != 1 {
		t.Fatalf("user.gz holds %d users, want Ada alone: %v", len(users), users)
	}
	u := users[0]
	confirmed := ledgerTotals(t, s, ada.ID, time.Time{}, through).Confirmed
	if name, _ := u.Get("name"); name != "ada-l" || !near(number(t, u, "total_credit"), confirmed) || confirmed <= 0 {
		t.Errorf("Ada's record %v; want handle ada-l and confirmed credit %f", u, confirmed)
	}
	if avg := recentAverage(t, s, ada.ID, through, ex.BuiltAt); !near(number(t, u, "expavg_credit"), avg) || avg <= 0 {
		t.Errorf("expavg_credit %v, want RecentAverage %f", number(t, u, "expavg_credit"), avg)
	}
	if cpid, _ := u.Get("cpid"); cpid != profile.StatsCPID || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(cpid) {
		t.Errorf("cpid %q, profile's %q", cpid, profile.StatsCPID)
	}
	if team, _ := u.Get("teamid"); team != strconv.FormatInt(teamID, 10) {
		t.Errorf("teamid %q, want %d", team, teamID)
	}
	adaID, _ := u.Get("id")

	teams := readRecords(t, files["team.gz"], "teams", "team")
	if len(teams) != 1 {
		t.Fatalf("team.gz holds %d teams, want one (the other is hidden): %v", len(teams), teams)
	}
	tr := teams[0]
	name, _ := tr.Get("name")
	founder, _ := tr.Get("founder_name")
	userid, _ := tr.Get("userid")
	if name != hostileTeam || founder != "ada-l" || userid != adaID || !near(number(t, tr, "total_credit"), teamCredit) {
		t.Errorf("team %v; want its name as text, Ada its founder, credit %f", tr, teamCredit)
	}
	hist, err := s.Teams.TeamHistory(ctx, teamID, time.Time{}, through)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, d := range hist {
		sum += d.Confirmed
	}
	if !near(sum, teamCredit) {
		t.Errorf("the team's history sums to %f, the export says %f", sum, teamCredit)
	}
	// Its days of credit are 4 and 2 days apart: BOINC's rule spreads a
	// day's credit over the days since the one before.
	if avg, _ := accounting.RecentAverage(hist, ex.BuiltAt); !near(number(t, tr, "expavg_credit"), avg) || avg <= 0 {
		t.Errorf("the team's expavg_credit %v, want RecentAverage %f", number(t, tr, "expavg_credit"), avg)
	}

	sc, err := boinc.NewGzipHostScanner(bytes.NewReader(files["host.gz"]))
	if err != nil {
		t.Fatal(err)
	}
	hosts := 0
	for sc.Next() {
		h := sc.Host()
		if strconv.FormatInt(h.UserID, 10) != adaID || h.TotalCredit <= 0 || len(h.HostCPID) != 32 {
			t.Errorf("host %+v: not one of Ada's, or without credit", h)
		}
		hosts++
	}
	if sc.Err() != nil || hosts == 0 {
		t.Fatalf("host.gz: %d hosts, %v", hosts, sc.Err())
	}

	tables, err := boinc.ParseTables(bytes.NewReader(files["tables.xml"]))
	if err != nil {
		t.Fatal(err)
	}
	if tables.NUsersTotal != 1 || tables.NTeamsTotal != 1 || tables.NHostsTotal != int64(hosts) ||
		!near(tables.TotalCredit, confirmed) || tables.UpdateTime != ex.BuiltAt.Unix() {
		t.Errorf("tables.xml %+v; want 1 user, 1 team, %d hosts, %f", tables, hosts, confirmed)
	}

	all := plain(t, files)
	for _, secret := range []string{"bob-b", "carol-c", bobs.StatsCPID, "ada@example.org", "Ada<", "alpha", "<script>", "Hidden team"} {
		if secret != "" && bytes.Contains(all, []byte(secret)) {
			t.Errorf("the export holds %q", secret)
		}
	}
	if bobs.StatsCPID == "" {
		t.Error("Bob opted in and has no cross-project id")
	}
}

// Leaving the statistics, making the profile private or deleting the
// account takes the volunteer out of the next export; a renewed id starts
// a new listing with nothing of the old.
func TestStatsLeavingAndRenewing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, bob, _, _ := publicFixtureOn(t)
	for id, handle := range map[int64]string{ada.ID: "ada-l", bob.ID: "bob-b"} {
		if err := s.Public.SetPublicProfile(ctx, id, accounting.PublicProfile{Handle: handle, Public: true, InStats: true}); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := s.Public.PublicProfile(ctx, ada.ID)
	_, files := statsFiles(t, s, time.Now())
	if n := len(readRecords(t, files["user.gz"], "users", "user")); n != 2 {
		t.Fatalf("%d users listed, want 2", n)
	}
	if err := s.Public.RenewStatsID(ctx, ada.ID); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Public.PublicProfile(ctx, ada.ID)
	if after.StatsCPID == before.StatsCPID || after.StatsCPID == "" {
		t.Errorf("renewed cpid %q, was %q", after.StatsCPID, before.StatsCPID)
	}
	_, files = statsFiles(t, s, time.Now())
	all := plain(t, files)
	if bytes.Contains(all, []byte(before.StatsCPID)) || !bytes.Contains(all, []byte(after.StatsCPID)) {
		t.Error("the export after renewing does not hold the new cpid alone")
	}

	if err := s.Public.SetPublicProfile(ctx, ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.Accounts.DeleteUser(ctx, bob.ID, "bobs-pass"); err != nil {
		t.Fatal(err)
	}
	_, files = statsFiles(t, s, time.Now())
	if users := readRecords(t, files["user.gz"], "users", "user"); len(users) != 0 {
		t.Errorf("after Ada left and Bob's account was deleted: %v", users)
	}
	if err := s.Public.SetPublicProfile(ctx, ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true, InStats: true}); err != nil {
		t.Fatal(err)
	}
	again, _ := s.Public.PublicProfile(ctx, ada.ID)
	if again.StatsCPID != after.StatsCPID {
		t.Errorf("opting in again gave cpid %q, want the one kept, %q", again.StatsCPID, after.StatsCPID)
	}
	if err := s.Public.RenewStatsID(ctx, bob.ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("renewing a deleted volunteer's id: %v, want ErrNotFound", err)
	}
}

// Before the first export there is nothing to serve, and only the four
// files are served.
func TestStatsFileNotFound(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, name := range []string{"user.gz", "../user.gz", "host_0.gz"} {
		err := s.Stats.ReadStatsFile(context.Background(), name, func(accounting.StatsFile) (io.Writer, error) { return io.Discard, nil })
		if !errors.Is(err, accounting.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
}
