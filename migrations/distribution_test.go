package migrations_test

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// referenceTables are the tables that a distribution by volunteer would
// copy to every node: the catalog, the signing key and what belongs to no
// volunteer (counters, the audit log, reconciliation runs of a project).
var referenceTables = []string{
	"projects", "signing_key", "schema_version", "rpc_hourly", "system_counts",
	"rollup_project_days", "rollup_days", "ledger_dirty_days", "ledger_retired_months", "audit_log",
	"reconcile_runs", "reconcile_orphans", "export_files", "sessions",
	"signups",                                            // sign-ups not yet confirmed: no account yet
	"attempt_counts",                                     // shared limits, by address or email
	"work_expected",                                      // balancing, per project and hour
	"credit_measures", "credit_projects", "credit_pairs", // the public credit measure: aggregates only
	"teams", "rollup_team_days", // a team is many volunteers'
	"stats_exports", "stats_export_files", "stats_export_chunks", // the statistics export: everyone listed
}

// directories are reference tables that find the volunteer by something
// unique across all volunteers, which therefore cannot carry the volunteer
// in its key: an email address, a feed token. A trigger on users keeps them
// in step.
var directories = []string{"user_emails", "user_feed_tokens"}

// singleNodeTables are kept whole on one node, neither spread by volunteer
// nor copied: the mail queue, which the mailer drains across all volunteers
// and which holds mail to addresses without an account, and River's job
// queue (migration 021), whose tables River defines and whose jobs (a
// message, a periodic round) belong to no volunteer.
var singleNodeTables = []string{"mail_outbox",
	"river_job", "river_leader", "river_migration", "river_notification", "river_queue"}

// lookupKeys are the unique keys of tables spread by volunteer that do not
// carry the volunteer: the AM token and the host token, by which a
// steady-state RPC finds its volunteer and its host. The planner needs
// each to be unique on its own, or it plans the RPC's generic statements
// as scans over every volunteer (migration 020, docs/PERFORMANCE.md). A
// distribution by volunteer would move them to directories first
// (docs/SCALING.md). An API request finds its volunteer by its token's
// hash, and a visitor finds a public profile by its handle and a
// certificate by its verification code, the same way; and a statistics
// site finds a listed volunteer by their cross-project id.
var lookupKeys = []string{"am_tokens_pkey", "hosts_opaque_token_key", "api_tokens_secret_hash_key",
	"public_profiles_handle_key", "certificates_code_key", "public_profiles_stats_cpid_key",
	"public_profiles_stats_id_key"}

// volunteerColumn is the column that names a table's volunteer.
func volunteerColumn(table string) string {
	if table == "users" {
		return "id"
	}
	return "user_id"
}

// byVolunteer reports whether a distribution by volunteer would spread the
// table's rows: every table that is not listed above.
func byVolunteer(table string) bool {
	return !slices.Contains(referenceTables, table) && !slices.Contains(directories, table) &&
		!slices.Contains(singleNodeTables, table)
}

// Every volunteer-owned table carries user_id in its primary key and in
// every unique key but the lookupKeys, so that a distribution by volunteer
// (Citus-style, docs/SCALING.md) needs no other schema change.
func TestKeysCarryTheVolunteer(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := migrated(t)
	rows, _ := conn.Query(ctx, `
		SELECT c.relname,
			EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
				AND a.attname = CASE c.relname WHEN 'users' THEN 'id' ELSE 'user_id' END AND NOT a.attisdropped),
			EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary),
			coalesce((SELECT array_agg(i.indexrelid::regclass::text ORDER BY 1) FROM pg_index i
				WHERE i.indrelid = c.oid AND i.indisunique AND NOT EXISTS (
					SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
						AND a.attname = CASE c.relname WHEN 'users' THEN 'id' ELSE 'user_id' END
						AND a.attnum = ANY(i.indkey))), '{}')
		FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		ORDER BY 1`)
	var name string
	var hasUser, hasPK bool
	var without []string
	var tables, lookups []string
	_, err := pgx.ForEachRow(rows, []any{&name, &hasUser, &hasPK, &without}, func() error {
		tables = append(tables, name)
		if !byVolunteer(name) {
			return nil
		}
		without = slices.DeleteFunc(without, func(key string) bool {
			if slices.Contains(lookupKeys, key) {
				lookups = append(lookups, key)
				return true
			}
			return false
		})
		if !(hasUser && hasPK && len(without) == 0) {
			t.Errorf("table %s: %s column %v, primary key %v, unique keys without it %q",
				name, volunteerColumn(name), hasUser, hasPK, without)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range slices.Concat(referenceTables, directories, singleNodeTables) {
		if !slices.Contains(tables, r) {
			t.Errorf("listed table %s does not exist", r)
		}
	}
	for _, k := range lookupKeys {
		if !slices.Contains(lookups, k) {
			t.Errorf("listed lookup key %s is not a unique key without the volunteer", k)
		}
	}
}

// A foreign key into a table spread by volunteer comes from another such
// table and pairs the volunteer's columns, so that both rows are on one
// node: the second half of the rule.
func TestForeignKeysCarryTheVolunteer(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := migrated(t)
	// Partitions' copies of a partitioned table's keys are left out.
	rows, _ := conn.Query(ctx, `
		SELECT f.conname, f.conrelid::regclass::text, f.confrelid::regclass::text,
			EXISTS (SELECT 1 FROM unnest(f.conkey, f.confkey) AS k (col, ref)
				JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.col
				JOIN pg_attribute r ON r.attrelid = f.confrelid AND r.attnum = k.ref
				WHERE a.attname = 'user_id'
					AND r.attname = CASE f.confrelid WHEN 'users'::regclass THEN 'id' ELSE 'user_id' END)
		FROM pg_constraint f
		WHERE f.contype = 'f' AND f.conparentid = 0
			AND f.connamespace = current_schema()::regnamespace
		ORDER BY 1`)
	var name, from, to string
	var paired bool
	n := 0
	_, err := pgx.ForEachRow(rows, []any{&name, &from, &to, &paired}, func() error {
		n++
		switch {
		case !byVolunteer(to):
		case !byVolunteer(from):
			t.Errorf("foreign key %s: %s, not spread by volunteer, refers to %s, which is", name, from, to)
		case !paired:
			t.Errorf("foreign key %s from %s to %s does not pair the volunteer's columns", name, from, to)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("read %d foreign keys; the schema has more", n)
	}
}
