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

// tDate writes a calendar day: 25 Nov 2026, or 25. Nov. 2026.
func tDate(ctx context.Context, d time.Time) string { return locale.From(ctx).Date(d) }

// tWhen writes an instant in UTC, to the minute: 25 Nov 2026, 14:05 UTC.
func tWhen(ctx context.Context, at time.Time) string { return locale.From(ctx).DateTime(at.UTC()) }
