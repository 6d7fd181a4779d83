package views

import (
	"context"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// t writes catalog message id in the language ctx carries, its
// placeholders filled from name, value pairs (locale.Lang.T).
func t(ctx context.Context, id string, pairs ...any) string {
	return locale.From(ctx).T(id, pairs...)
}

// The formats of the volunteer's pages, in the language ctx carries (the
// admin pages, in English, use credit, count, day and when).

// tCredit writes an amount of credit (locale.Lang.Credit): 1,234.5 or 1.234,5.
func tCredit(ctx context.Context, v float64) string { return locale.From(ctx).Credit(v) }

// tCount writes a whole number with the language's group separator.
func tCount(ctx context.Context, n int64) string { return locale.From(ctx).Int(n) }

// tNumber writes v with decimals digits after the decimal separator.
func tNumber(ctx context.Context, v float64, decimals int) string {
	return locale.From(ctx).Number(v, decimals)
}

// tDate writes a calendar day: 25 Nov 2026, or 25. Nov. 2026.
func tDate(ctx context.Context, d time.Time) string { return locale.From(ctx).Date(d) }

// tDayMonth writes a day without its year: 25 Nov, or 25. Nov.
func tDayMonth(ctx context.Context, d time.Time) string { return locale.From(ctx).DayMonth(d) }

// tWhen writes an instant in UTC, to the minute: 25 Nov 2026, 14:05 UTC.
func tWhen(ctx context.Context, at time.Time) string { return locale.From(ctx).DateTime(at.UTC()) }

// tWhenPtr is tWhen for an optional instant: a dash for none.
func tWhenPtr(ctx context.Context, at *time.Time) string {
	if at == nil {
		return "–"
	}
	return tWhen(ctx, *at)
}
