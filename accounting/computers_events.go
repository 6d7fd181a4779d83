package accounting

import (
	"fmt"

	"github.com/jackc/pgx/v5"
)

// eventColumns are the columns scanEvent reads, of accounting_events e
// left-joined with projects p.
const eventColumns = `e.id, e.at, e.kind, coalesce(p.name, ''), e.detail`

// scanEvent reads one row of eventColumns. A detail that does not decode
// is an error naming the event.
func scanEvent(row pgx.CollectableRow) (Event, error) {
	var e Event
	var raw []byte
	if err := row.Scan(&e.ID, &e.At, &e.Kind, &e.ProjectName, &raw); err != nil {
		return e, err
	}
	d, err := decodeEventDetail(e.Kind, raw)
	if err != nil {
		return e, fmt.Errorf("event %d: its detail does not read: %w", e.ID, err)
	}
	e.Detail = d
	return e, nil
}
