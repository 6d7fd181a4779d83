package main

import (
	"regexp"
	"testing"

	"github.com/cobble-am/cobble/internal/testdb"
)

// cobble stats export builds the four files now, as the daily round does,
// and says what they hold; a second run replaces the first's for the
// instances, keeping it for the downloads under way.
func TestStatsExportCommand(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": testdb.NewURL(t)}
	execSQL(t, env["DATABASE_URL"], `
		INSERT INTO users (email, name, password_hash) VALUES ('ada@example.org', 'Ada', 'x');
		INSERT INTO public_profiles (user_id, handle, public, in_stats, stats_cpid, stats_id, stats_since)
			SELECT id, 'ada-l', true, true, md5('a'), nextval('stats_ids'), now() FROM users`)
	want := regexp.MustCompile(`^built the statistics export: 1 volunteer, 0 teams, 0 computers, [0-9]+ bytes ` +
		`\(no settled day yet\) in [0-9.]+m?s\n$`)
	for range 3 {
		status, stdout, stderr := runProcess(t, env, "stats", "export")
		if status != 0 || !want.MatchString(stdout) {
			t.Fatalf("stats export: exit %d\n%s%s", status, stdout, stderr)
		}
	}
	var exports, files int
	query(t, env["DATABASE_URL"], []any{&exports, &files},
		`SELECT (SELECT count(*) FROM stats_exports), (SELECT count(*) FROM stats_export_files)`)
	if exports != 2 || files != 8 {
		t.Errorf("after three runs: %d exports with %d files, want the last two, 8", exports, files)
	}
}
