package accounting_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/testdb"
)

// BenchmarkRollupRound times one periodic rollup round, which folds the
// recent days again from the ledger, with COBBLE_ROLLUP_HOSTS hosts
// (default 20,000) × 3 projects × 30 days of ledger rows, and reports the
// ledger rows of the folded days and the time per such row.
//
//	COBBLE_ROLLUP_HOSTS=50000 go run ./internal/pgcluster/withpg -- \
//	    go test -run '^$' -bench RollupRound -benchtime 5x ./accounting/
func BenchmarkRollupRound(b *testing.B) {
	hosts := 20_000
	if v, err := strconv.Atoi(os.Getenv("COBBLE_ROLLUP_HOSTS")); err == nil && v > 0 {
		hosts = v
	}
	ctx := context.Background()
	pool := testdb.New(b)
	s := accounting.NewStore(pool, testOptions)
	now := time.Now().UTC()
	for _, q := range []string{
		`INSERT INTO users (email, name, password_hash)
		SELECT 'v' || i || '@example.org', 'v' || i, 'x' FROM generate_series(1, $1::int / 4) AS i`,
		`INSERT INTO projects (url, name, authenticator)
		SELECT 'https://p' || i || '.example.org/', 'P' || i, 'a' FROM generate_series(1, 3) AS i WHERE $1::int > 0`,
		`INSERT INTO hosts (user_id, opaque_token)
		SELECT u.id, 't' || u.id || '-' || i FROM users u, generate_series(1, 4) AS i WHERE $1::int > 0`,
		`INSERT INTO host_projects (host_id, project_id, user_id)
		SELECT h.id, p.id, h.user_id FROM hosts h, projects p WHERE $1::int > 0`,
		`SELECT ledger_partitions_ensure(current_date - 40, 3) WHERE $1::int > 0`,
		`INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro, cpu_time_micro, njobs_success)
		SELECT host_id, project_id, current_date - d, user_id, 1000000 + d, 3600000000, 3
		FROM host_projects, generate_series(0, 29) AS d WHERE $1::int > 0
		ORDER BY d DESC, host_id, project_id`, // a day's rows together, as RPCs write them
	} {
		if _, err := pool.Exec(ctx, q, hosts); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
	if err := s.Ledger.Rollup(ctx, now.AddDate(0, 0, -1), now); err != nil { // the previous round: today
		b.Fatal(err)
	}
	var rows int64
	// A round after one at the same moment folds from the day before the
	// day an hour earlier (store_rollups.go, foldRecent).
	from := accounting.CivilDay(now.Add(-time.Hour)).AddDate(0, 0, -1)
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM ledger WHERE day >= $1::date`, from).Scan(&rows); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := s.Ledger.Rollup(ctx, now.AddDate(0, 0, -1), now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows), "folded-rows")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/folded-row")
}
