package migrations_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cobble-am/cobble/migrations"
)

// fillVolunteers adds, to a database filled by fillBefore at the schema
// before the keys by volunteer, each host's AM token, credit events, export
// credit and reconciliation rows, and each volunteer's link token, session,
// queued mail and an audit entry; and one token without a host and one
// mail to an address without an account.
func fillVolunteers(ctx context.Context, conn *pgx.Conn) error {
	for _, q := range []string{
		`INSERT INTO am_tokens (token_hash, user_id, host_id)
		SELECT sha256(('am' || h.id)::bytea), h.user_id, h.id FROM hosts h`,
		`INSERT INTO am_tokens (token_hash, user_id) SELECT sha256('unbound'::bytea), min(id) FROM users`,
		`INSERT INTO user_tokens (token_hash, user_id, purpose, email, expires_at)
		SELECT sha256(('ut' || id)::bytea), id, 'password_reset', email, now() + interval '1 hour' FROM users`,
		`INSERT INTO user_sessions (user_id) SELECT id FROM users`,
		`INSERT INTO mail_outbox (kind, user_id, recipient) SELECT 'welcome', id, email FROM users`,
		`INSERT INTO mail_outbox (kind, recipient) VALUES ('signup', 'nobody@example.org')`,
		`INSERT INTO audit_log (actor, actor_user_id, kind) SELECT email, id, 'run_now' FROM users`,
		`INSERT INTO accounting_events (user_id, host_id, at, kind) SELECT user_id, id, now(), 'reset' FROM hosts`,
		`INSERT INTO reconcile_runs (project_id, started_at, status, source) SELECT id, now(), 'ok', 'test' FROM projects`,
		`INSERT INTO export_credit (host_id, project_id, export_time, run_id, project_hostid,
			total_credit, expavg_credit, expavg_time)
		SELECT hp.host_id, hp.project_id, now(), r.id, hp.host_id, 1, 1, 1
		FROM host_projects hp JOIN reconcile_runs r USING (project_id)`,
		`INSERT INTO reconcile_missing (run_id, host_id, project_hostid)
		SELECT r.id, hp.host_id, hp.host_id FROM host_projects hp JOIN reconcile_runs r USING (project_id)`,
		`INSERT INTO reconcile_unverified (run_id, host_id, user_id, project_hostid, reason)
		SELECT r.id, hp.host_id, hp.user_id, hp.host_id, 'test' FROM host_projects hp JOIN reconcile_runs r USING (project_id)`,
		`INSERT INTO ledger_retired_totals (host_id, project_id, user_id) SELECT host_id, project_id, user_id FROM host_projects`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// volunteerTables are the tables with rows of volunteers, by user_id.
const volunteerTables = `SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
	WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		AND a.attname = 'user_id' AND NOT a.attisdropped ORDER BY 1`

// rowsByVolunteer counts, in each table with a user_id column, the rows of
// each volunteer (NULL for none), and the audit entries each volunteer made.
func rowsByVolunteer(ctx context.Context, conn *pgx.Conn, tables []string) (map[string]map[int64]int, error) {
	out := map[string]map[int64]int{}
	for _, table := range append(tables, "audit_log") {
		col := "user_id"
		if table == "audit_log" {
			col = "actor_user_id"
		}
		rows, _ := conn.Query(ctx, `SELECT coalesce(`+col+`, 0), count(*) FROM `+pgx.Identifier{table}.Sanitize()+
			` GROUP BY 1`)
		counts := map[int64]int{}
		var user int64
		var n int
		if _, err := pgx.ForEachRow(rows, []any{&user, &n}, func() error { counts[user] = n; return nil }); err != nil {
			return nil, err
		}
		out[table] = counts
	}
	return out, nil
}

func TestKeysByVolunteerMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := connect(t)
	v := versionNamed(t, conn, "_keys_by_volunteer.sql")
	if err := migrations.MigrateTo(ctx, conn, v-1); err != nil {
		t.Fatal(err)
	}
	if err := fillBefore(ctx, conn, 3, 2, 2, 40); err != nil {
		t.Fatal(err)
	}
	if err := fillVolunteers(ctx, conn); err != nil {
		t.Fatal(err)
	}
	rows, _ := conn.Query(ctx, volunteerTables)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	before, err := rowsByVolunteer(ctx, conn, tables)
	if err != nil {
		t.Fatal(err)
	}
	migrateKeepingLedger(t, conn, v)
	// The two tables that gained user_id hold one row per host and project.
	gained := []string{"export_credit", "reconcile_missing"}
	for _, table := range gained {
		before[table] = before["host_projects"]
	}
	tables = append(tables, gained...)
	after, err := rowsByVolunteer(ctx, conn, tables)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("rows by volunteer changed in the migration (-before +after):\n%s", diff)
	}
	checkLedgerKeys(t, conn)
	checkDirectories(t, conn)
	checkDeleteVolunteer(t, conn, tables, after)
}

// checkDirectories checks that the directories list every volunteer's
// address and feed token, and refuse a second account of an address, in
// any letter case, until its owner changes it.
func checkDirectories(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := t.Context()
	var missing int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM users u WHERE NOT EXISTS (
			SELECT 1 FROM user_emails e WHERE e.email = lower(u.email) AND e.user_id = u.id)
		OR NOT EXISTS (SELECT 1 FROM user_feed_tokens f WHERE f.feed_token = u.feed_token AND f.user_id = u.id)`).
		Scan(&missing); err != nil || missing != 0 {
		t.Errorf("%d volunteers missing from the directories (%v)", missing, err)
	}
	insert := `INSERT INTO users (email, name, password_hash) VALUES ('V1@Example.ORG', 'again', 'x')`
	var pgErr *pgconn.PgError
	if _, err := conn.Exec(ctx, insert); !errors.As(err, &pgErr) || pgErr.Code != "23505" ||
		pgErr.ConstraintName != "user_emails_pkey" {
		t.Errorf("a second account of v1@example.org: %v", err)
	}
	if _, err := conn.Exec(ctx, `UPDATE users SET email = 'v1@example.net' WHERE email = 'v1@example.org'`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, insert); err != nil {
		t.Errorf("an account of the address given up: %v", err)
	}
	if _, err := conn.Exec(ctx, `UPDATE users SET feed_token = (SELECT feed_token FROM users WHERE email = 'v2@example.org')
		WHERE email = 'v3@example.org'`); !errors.As(err, &pgErr) || pgErr.ConstraintName != "user_feed_tokens_pkey" {
		t.Errorf("a second volunteer with v2's feed token: %v", err)
	}
}

// checkDeleteVolunteer deletes the volunteer v2@example.org and checks
// that every row of theirs went, and no other volunteer's.
func checkDeleteVolunteer(t *testing.T, conn *pgx.Conn, tables []string, before map[string]map[int64]int) {
	t.Helper()
	ctx := t.Context()
	var id int64
	if err := conn.QueryRow(ctx, `DELETE FROM users WHERE email = 'v2@example.org' RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	after, err := rowsByVolunteer(ctx, conn, tables)
	if err != nil {
		t.Fatal(err)
	}
	for table, counts := range before {
		if len(counts) > 0 && counts[id] == 0 {
			t.Errorf("%s had no row of the volunteer to delete", table)
		}
		want := map[int64]int{}
		for user, n := range counts {
			want[user] = n
		}
		delete(want, id)
		if table == "audit_log" {
			want[0] += counts[id] // unnamed, kept
		}
		if diff := cmp.Diff(want, after[table]); diff != "" {
			t.Errorf("%s after deleting volunteer %d (-want +got):\n%s", table, id, diff)
		}
	}
	for _, dir := range []string{"user_emails", "user_feed_tokens"} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+dir+` WHERE user_id = $1`, id).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s keeps %d rows of the deleted volunteer (%v)", dir, n, err)
		}
	}
}
