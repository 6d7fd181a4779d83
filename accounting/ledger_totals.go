package accounting

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// dayColumns sums ledger rows into DayCredit's fields: the day, each of
// UsageFields in whole units, and the credit clamped.
var dayColumns = `day::timestamp AT TIME ZONE 'UTC' AS day, ` + daySums() + `,
	sum(` + CreditSQL("clamped_") + `) / 1e6 AS clamped_ec`

// daySums sums each of UsageFields' ledger columns, in whole units, as its name.
func daySums() string {
	sums := make([]string, len(UsageFields))
	for i, f := range UsageFields {
		sums[i] = "sum(" + f.Column + ")::bigint AS " + f.Name
		if f.Micro {
			sums[i] = "sum(" + f.Column + ") / 1e6 AS " + f.Name
		}
	}
	return strings.Join(sums, ", ")
}

// UserDays returns a volunteer's daily totals for the days from–to
// (inclusive), oldest first; days without credit are left out.
func (s *LedgerStore) UserDays(ctx context.Context, userID int64, from, to time.Time) ([]DayCredit, error) {
	args := pgx.NamedArgs{"user": userID, "from": from, "to": to}
	var days []DayCredit
	err := s.readVolunteerDays(ctx, args, func(tx pgx.Tx, source string) error {
		rows, _ := tx.Query(ctx, `SELECT `+dayColumns+` FROM (`+source+`) l
			GROUP BY day HAVING sum(hosts) > 0 ORDER BY day`, pgx.QueryExecModeExec, args)
		var err error
		days, err = pgx.CollectRows(rows, pgx.RowToStructByName[DayCredit])
		return err
	})
	return days, op("user days", err)
}

// SystemDays returns Cobble's daily totals over all hosts and projects.
func (s *LedgerStore) SystemDays(ctx context.Context, from, to time.Time) ([]DayCredit, error) {
	return s.days(ctx, "system days", "ledger", `true`, from, to)
}

func (s *LedgerStore) days(ctx context.Context, name, table, where string, from, to time.Time, args ...any) ([]DayCredit, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+dayColumns+` FROM `+table+`
		WHERE day BETWEEN $1::date AND $2::date AND `+where+`
		GROUP BY day ORDER BY day`, append([]any{from, to}, args...)...)
	days, err := pgx.CollectRows(rows, pgx.RowToStructByName[DayCredit])
	return days, op(name, err)
}
