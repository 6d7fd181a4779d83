package accounting

import (
	"context"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/testdb"
)

// The recent work per project is the last seven days of the per-(project,
// day) rollups, divided by seven; older days do not count.
func TestRecentWorkReadsTheRollups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := NewStore(pool, Options{})
	var ids []int64
	for _, name := range []string{"a", "b"} {
		p, err := s.Catalog.AddProject(ctx, Project{URL: "https://" + name + ".example.org/", Name: name, Authenticator: "k"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	p1, p2 := ids[0], ids[1]
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		project int64
		day     string
		credit  int64
	}{{p1, "2026-05-10", 70}, {p1, "2026-05-04", 70}, {p1, "2026-05-03", 1000}, {p2, "2026-05-09", 14}} {
		if _, err := pool.Exec(ctx, `INSERT INTO rollup_project_days (project_id, day, ec_micro) VALUES ($1, $2, $3)`,
			r.project, r.day, r.credit*1_000_000); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Sync.refreshRecentWork(ctx, now); err != nil {
		t.Fatal(err)
	}
	s.recent.mu.Lock()
	defer s.recent.mu.Unlock()
	if got := s.recent.base; len(got) != 2 || got[p1] != 20 || got[p2] != 2 {
		t.Errorf("recent work per day: %v; want %d: 20 (May 3rd is eight days back), %d: 2", got, p1, p2)
	}
}
