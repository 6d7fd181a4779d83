package migrations_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/testdb"
	"github.com/cobble-am/cobble/migrations"
)

// partitionedVersion is the number of the migration that partitions the
// ledger.
func partitionedVersion(tb testing.TB, conn *pgx.Conn) int {
	tb.Helper()
	return versionNamed(tb, conn, "_partitioned_ledger.sql")
}

// versionNamed is the number of the migration whose name ends in suffix,
// found by its name so that renumbering it changes nothing in the tests.
func versionNamed(tb testing.TB, conn *pgx.Conn, suffix string) int {
	tb.Helper()
	st, err := migrations.ReadStatus(tb.Context(), conn)
	if err != nil {
		tb.Fatal(err)
	}
	for i, name := range st.Names {
		if strings.HasSuffix(name, suffix) {
			return i + 1
		}
	}
	tb.Fatalf("no *%s migration", suffix)
	return 0
}

// fillBefore fills a database at the schema before the partitioned ledger with users volunteers of hostsEach hosts on each of projects
// projects, and one ledger row per (host, project, day) for days days
// ending today, and a confirmed row for every other one.
func fillBefore(ctx context.Context, conn *pgx.Conn, users, hostsEach, projects, days int) error {
	for _, q := range []string{
		`INSERT INTO users (email, name, password_hash)
		SELECT 'v' || i || '@example.org', 'v' || i, 'x' FROM generate_series(1, @users) AS i`,
		`INSERT INTO projects (url, name, authenticator)
		SELECT 'https://p' || i || '.example.org/', 'P' || i, 'a' FROM generate_series(1, @projects) AS i`,
		`INSERT INTO hosts (user_id, opaque_token)
		SELECT u.id, 't' || u.id || '-' || i FROM users u, generate_series(1, @hosts) AS i`,
		`INSERT INTO host_projects (host_id, project_id, user_id)
		SELECT h.id, p.id, h.user_id FROM hosts h, projects p`,
		`INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro, cpu_time_micro,
			gpu_ec_micro, njobs_success, clamped_cpu_ec_micro)
		SELECT hp.host_id, hp.project_id, current_date - d, hp.user_id,
			(hp.host_id * 7919 + d * 104729) % 1000003, d * 1000 + hp.project_id,
			(hp.host_id + d) % 3 * 500000, d % 5, CASE WHEN d % 17 = 0 THEN 123 ELSE 0 END
		FROM host_projects hp, generate_series(0, @days - 1) AS d`,
		`INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro)
		SELECT host_id, project_id, day, user_id, cpu_ec_micro / 2 FROM ledger
		WHERE (host_id + extract(doy FROM day)::int) % 2 = 0`,
	} {
		if _, err := conn.Exec(ctx, q, pgx.NamedArgs{"users": users, "hosts": hostsEach,
			"projects": projects, "days": days}); err != nil {
			return err
		}
	}
	return nil
}

// ledgerFingerprint is, for each ledger table, its row count, the sums of
// its columns and an order-independent hash of its rows.
func ledgerFingerprint(ctx context.Context, conn *pgx.Conn) (map[string][]string, error) {
	queries := map[string]string{
		"ledger": `SELECT ARRAY[count(*)::text, sum(cpu_ec_micro)::text, sum(cpu_time_micro)::text, sum(gpu_ec_micro)::text,
			sum(gpu_time_micro)::text, sum(njobs_success)::text, sum(njobs_error)::text,
			sum(clamped_cpu_ec_micro + clamped_cpu_time_micro + clamped_gpu_ec_micro + clamped_gpu_time_micro
				+ clamped_njobs_success + clamped_njobs_error)::text,
			sum(hashtextextended(l::text, 0)::numeric)::text] FROM ledger l`,
		"confirmed_ledger": `SELECT ARRAY[count(*)::text, sum(granted_micro)::text,
			sum(hashtextextended(c::text, 0)::numeric)::text] FROM confirmed_ledger c`,
		"per user": `SELECT ARRAY[count(*)::text, sum(hashtextextended(s::text, 0)::numeric)::text] FROM (
			SELECT user_id, day, sum(cpu_ec_micro + gpu_ec_micro) FROM ledger GROUP BY user_id, day) s`,
	}
	out := map[string][]string{}
	for name, q := range queries {
		rows, _ := conn.Query(ctx, q)
		vals, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[[]string])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = vals
	}
	return out, nil
}

// migrateKeepingLedger applies the migrations up to v on conn, fails t if
// the ledgers' fingerprint changed, and returns the fingerprint.
func migrateKeepingLedger(t *testing.T, conn *pgx.Conn, v int) map[string][]string {
	t.Helper()
	before, err := ledgerFingerprint(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.MigrateTo(t.Context(), conn, v); err != nil {
		t.Fatal(err)
	}
	after, err := ledgerFingerprint(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the ledger changed in the migration (-before +after):\n%s", diff)
	}
	return before
}

func TestPartitionedLedgerMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := connect(t)
	v := partitionedVersion(t, conn)
	if err := migrations.MigrateTo(ctx, conn, v-1); err != nil {
		t.Fatal(err)
	}
	// 4 volunteers × 3 hosts × 2 projects × 400 days: 9,600 rows over 14 months.
	if err := fillBefore(ctx, conn, 4, 3, 2, 400); err != nil {
		t.Fatal(err)
	}
	if before := migrateKeepingLedger(t, conn, v); before["ledger"][0] != "9600" {
		t.Errorf("filled %s ledger rows, want 9600", before["ledger"][0])
	}
	var months, inDefault, kind int
	if err := conn.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM pg_inherits WHERE inhparent = 'ledger'::regclass),
			(SELECT count(*) FROM ledger_default) + (SELECT count(*) FROM confirmed_ledger_default),
			(SELECT count(*) FROM pg_partitioned_table WHERE partrelid IN ('ledger'::regclass, 'confirmed_ledger'::regclass))`).
		Scan(&months, &inDefault, &kind); err != nil {
		t.Fatal(err)
	}
	// 400 days touch 14 or 15 months; two more ahead, and the default.
	if months < 14+2+1 || months > 15+2+1 || inDefault != 0 || kind != 2 {
		t.Errorf("after the migration: %d partitions of ledger, %d rows in DEFAULT, %d partitioned tables",
			months, inDefault, kind)
	}
	checkLedgerKeys(t, conn)
}

// checkLedgerKeys checks that both ledgers' primary keys are (host_id,
// project_id, day, user_id) and that their foreign keys still cascade.
func checkLedgerKeys(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	for _, table := range []string{"ledger", "confirmed_ledger"} {
		var pk string
		var fks int
		if err := conn.QueryRow(t.Context(), `
			SELECT (SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'),
				(SELECT count(*) FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f' AND confdeltype = 'c')`,
			table).Scan(&pk, &fks); err != nil {
			t.Fatal(err)
		}
		if pk != "PRIMARY KEY (host_id, project_id, day, user_id)" || fks != 2 {
			t.Errorf("%s: key %q, %d cascading foreign keys", table, pk, fks)
		}
	}
}

func TestLedgerPartitionsEnsure(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := migrated(t)
	if err := fillBefore(ctx, conn, 1, 1, 1, 0); err != nil { // no ledger rows, only a host
		t.Fatal(err)
	}
	// A row of a month with no partition goes to the DEFAULT partition ...
	if _, err := conn.Exec(ctx, `
		INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro)
		SELECT host_id, project_id, '2001-02-03', user_id, 5 FROM host_projects`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM ledger_default`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d rows in DEFAULT (%v)", n, err)
	}
	// ... and the next upkeep makes its month's partition and moves it there;
	// a day five months ahead gets its partitions (both tables, 6 months).
	ahead := time.Now().AddDate(0, 5, 0).Format(time.DateOnly)
	if err := conn.QueryRow(ctx, `SELECT ledger_partitions_ensure($1::date, 0)`, ahead).Scan(&n); err != nil || n != 3 {
		t.Errorf("ledger_partitions_ensure created %d partitions, want 3 (%v)", n, err)
	}
	var month, inDefault int
	if err := conn.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM ledger_p2001_02), (SELECT count(*) FROM ledger_default)`).
		Scan(&month, &inDefault); err != nil || month != 1 || inDefault != 0 {
		t.Errorf("after upkeep: %d rows in 2001-02, %d in DEFAULT (%v)", month, inDefault, err)
	}
	// The RPC's upsert on the key still adds up.
	for range 2 {
		if _, err := conn.Exec(ctx, `
			INSERT INTO ledger AS l (host_id, project_id, day, user_id, cpu_ec_micro)
			SELECT host_id, project_id, '2001-02-03', user_id, 5 FROM host_projects
			ON CONFLICT (host_id, project_id, day, user_id) DO UPDATE SET cpu_ec_micro = l.cpu_ec_micro + EXCLUDED.cpu_ec_micro`); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.QueryRow(ctx, `SELECT cpu_ec_micro FROM ledger WHERE day = '2001-02-03'`).Scan(&n); err != nil || n != 15 {
		t.Errorf("after two upserts: %d (%v), want 15", n, err)
	}
	if err := conn.QueryRow(ctx, `SELECT ledger_partitions_ensure($1::date, 0)`, ahead).Scan(&n); err != nil || n != 0 {
		t.Errorf("a second upkeep created %d partitions (%v)", n, err)
	}
	if _, err := conn.Exec(ctx, `SELECT ledger_partition_add('users', current_date)`); err == nil {
		t.Error("ledger_partition_add accepted another table")
	}
}

// BenchmarkPartitionedLedgerMigration times the partitioning migration on a ledger of
// COBBLE_MIGRATE_ROWS rows (default 1,000,000: 1,000 volunteers × 5 hosts ×
// 2 projects × 100 days), half as many confirmed rows, and reports rows/s.
//
//	COBBLE_MIGRATE_ROWS=3000000 go run ./internal/pgcluster/withpg -- \
//	    go test -run '^$' -bench PartitionedLedgerMigration -benchtime 1x ./migrations/
func BenchmarkPartitionedLedgerMigration(b *testing.B) {
	rows := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("COBBLE_MIGRATE_ROWS")); err == nil && v > 0 {
		rows = v
	}
	const hostsEach, projects, days = 5, 2, 100
	users := max(rows/(hostsEach*projects*days), 1)
	ctx := b.Context()
	for b.Loop() {
		b.StopTimer()
		conn, err := pgx.Connect(ctx, testdb.NewEmptyURL(b))
		if err != nil {
			b.Fatal(err)
		}
		v := partitionedVersion(b, conn)
		if err := migrations.MigrateTo(ctx, conn, v-1); err != nil {
			b.Fatal(err)
		}
		if err := fillBefore(ctx, conn, users, hostsEach, projects, days); err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
			b.Fatal(err)
		}
		var n, confirmed int64
		if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM ledger), (SELECT count(*) FROM confirmed_ledger)`).
			Scan(&n, &confirmed); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := migrations.MigrateTo(ctx, conn, v); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		b.ReportMetric(float64(n), "ledger-rows")
		b.ReportMetric(float64(confirmed), "confirmed-rows")
		b.ReportMetric(float64(n+confirmed)/took.Seconds(), "rows/s")
		b.ReportMetric(took.Seconds(), "s")
		conn.Close(ctx)
	}
}
