package accounting_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// A large team's page lists 50 of its public members' handles, with a
// plan for that team. PostgreSQL's generic plan of a prepared statement,
// which it takes after five runs when it looks cheaper, assumes a team of
// average size and probes each member's profile: 5,000 probes for a team
// of 5,000 (25–43 ms warm at 50 M rows, against 2.8 ms planned for the
// team). Counted in buffers, not in time: listing a page of handles must
// not touch a buffer per member (on the old code, from the sixth run on,
// 18,076 buffers for 3,000 members; planned for the team, 647).
func TestTeamMembersPlannedForTheTeam(t *testing.T) {
	// One large team, every fourth volunteer (as a big team's members are
	// spread over the handles), and the others in teams of two.
	const members, small = 3000, 4500
	ctx := context.Background()
	pool := oneBackend(t)
	for _, q := range []string{
		`INSERT INTO users (email, name, password_hash)
		SELECT 'v' || i || '@example.org', 'v' || i, 'x' FROM generate_series(1, $1::int + 2 * $2::int) AS i`,
		`INSERT INTO public_profiles (user_id, handle, public) SELECT id, 'h-' || id, true FROM users`,
		`INSERT INTO teams (name, name_key, type, created_by, invite_code)
		SELECT 'T' || i, 't' || i, 1, 1, translate(substr(md5(i::text), 1, 26), '0189', 'wxyz')
		FROM generate_series(1, $2::int + 1) AS i`,
		`INSERT INTO team_members (user_id, team_id, first_day)
		SELECT id, CASE WHEN id % 4 = 0 THEN 1 ELSE 2 + (row_number() OVER (PARTITION BY id % 4 = 0 ORDER BY id) - 1) / 2 END,
			current_date - 10
		FROM users`,
	} {
		q = strings.NewReplacer("$1::int", strconv.Itoa(members), "$2::int", strconv.Itoa(small)).Replace(q)
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
	s := accounting.NewStore(pool, testOptions)
	// The large team's page again and again, as its visitors ask for it:
	// after five plans for it, PostgreSQL may take the generic plan.
	for i := range 10 {
		before := buffersTouched(t, pool)
		handles, err := s.Teams.TeamMembers(ctx, 1, 50)
		if err != nil || len(handles) != 50 {
			t.Fatalf("the large team: %d handles, %v", len(handles), err)
		}
		touched := buffersTouched(t, pool) - before
		if touched >= members {
			t.Errorf("run %d of the large team's handles touched %d buffers for %d members: planned as for a small team",
				i+1, touched, members)
		}
	}
}
