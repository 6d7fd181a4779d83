package views

import (
	"context"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/internal/locale"
)

// t writes catalog message id in the language ctx carries, its
// placeholders filled from name, value pairs (locale.Lang.T).
func t(ctx context.Context, id string, pairs ...any) string {
	return locale.From(ctx).T(id, pairs...)
}

// tm writes catalog message id as HTML, for a sentence with markup inside
// it: its words are escaped, and a placeholder whose value is a
// templ.Component (a link, strong, code) is that component, rendered where
// the sentence of the reader's language puts it. Other values are as t
// writes them, escaped.
func tm(id string, pairs ...any) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		// Each component stands in the message as a marker of NUL bytes,
		// which no message or escaped value holds.
		args := make([]any, len(pairs))
		parts := map[string]templ.Component{}
		for i, v := range pairs {
			switch v := v.(type) {
			case templ.Component:
				marker := fmt.Sprintf("\x00%d\x00", i)
				parts[marker], args[i] = v, marker
			case string:
				args[i] = strings.ReplaceAll(v, "\x00", "\uFFFD")
			default:
				args[i] = v
			}
		}
		text := html.EscapeString(locale.From(ctx).T(id, args...))
		for {
			start := strings.IndexByte(text, 0)
			if start < 0 {
				_, err := io.WriteString(w, text)
				return err
			}
			end := start + 1 + strings.IndexByte(text[start+1:], 0)
			if _, err := io.WriteString(w, text[:start]); err != nil {
				return err
			}
			if c := parts[text[start:end+1]]; c != nil {
				if err := c.Render(ctx, w); err != nil {
					return err
				}
			}
			text = text[end+1:]
		}
	})
}

// The formats of the volunteer's pages, in the language ctx carries (the
// admin pages, in English, use credit, count, day and when).

// tDate writes a calendar day: 25 Nov 2026, or 25. Nov. 2026.
func tDate(ctx context.Context, d time.Time) string { return locale.From(ctx).Date(d) }

// tWhen writes an instant in UTC, to the minute: 25 Nov 2026, 14:05 UTC.
func tWhen(ctx context.Context, at time.Time) string { return locale.From(ctx).DateTime(at.UTC()) }
