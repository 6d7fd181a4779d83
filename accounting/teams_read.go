package accounting

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// recentSQL is a team's recent average as of the statement's time: the
// stored one decayed since it was computed (BOINC's decay of
// expavg_credit, avgHalfLife).
var recentSQL = fmt.Sprintf(`coalesce(t.expavg * exp(-greatest(extract(epoch FROM now() - t.expavg_time), 0) * ln(2) / %d), 0)`,
	int64(avgHalfLife.Seconds()))

// teamColumns are a team's columns (of teams "t") in Team's order.
var teamColumns = `t.id, t.name, t.type, t.country, t.url, t.description, t.open, t.hidden,
	(SELECT count(*) FROM team_members m WHERE m.team_id = t.id AND m.until_day IS NULL),
	t.granted_micro / 1e6, t.ec_micro / 1e6, ` + recentSQL + `, t.created_at`

// scanTeam reads teamColumns.
func scanTeam(row pgx.Row) (Team, error) {
	var t Team
	err := row.Scan(&t.ID, &t.Name, &t.Type, &t.Country, &t.URL, &t.Description, &t.Open, &t.Hidden, &t.Members,
		&t.Confirmed, &t.Estimated, &t.RecentAverage, &t.CreatedAt)
	return t, dbErr(err)
}

// team reads a team; hidden ones only if withHidden.
func (s *core) team(ctx context.Context, q querier, id int64, withHidden bool) (Team, error) {
	return scanTeam(q.QueryRow(ctx, `SELECT `+teamColumns+` FROM teams t WHERE t.id = $1 AND (NOT t.hidden OR $2)`,
		id, withHidden))
}

// Team returns a team for its public page: ErrNotFound when there is
// none or an admin hid it.
func (s *TeamsStore) Team(ctx context.Context, id int64) (Team, error) {
	t, err := s.team(ctx, s.pool, id, false)
	return t, op("team", err)
}

// TeamByCode returns the team whose invitation code this is, for the
// invitation's page: ErrNotFound for a code no team has (a renewed one)
// or a hidden team's.
func (s *TeamsStore) TeamByCode(ctx context.Context, code string) (Team, error) {
	if !inviteCode(code) {
		return Team{}, op("team by code", ErrNotFound)
	}
	t, err := scanTeam(s.pool.QueryRow(ctx, `SELECT `+teamColumns+` FROM teams t
		WHERE t.invite_code = $1 AND NOT t.hidden`, code))
	return t, op("team by code", err)
}

// teamOrders are the orders of Teams, by sort.
var teamOrders = map[string]string{
	TeamSortCredit: `t.granted_micro DESC, t.ec_micro DESC, t.name_key, t.id`,
	TeamSortName:   `t.name_key, t.id`,
	TeamSortRecent: recentSQL + ` DESC, t.name_key, t.id`,
}

// likeKey is a LIKE pattern of the folded names that hold search (made
// storable, and cut to a name's length: no name holds more).
func likeKey(search string) string {
	k := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(teamKey(CleanText(search, 4*MaxTeamName)))
	return "%" + k + "%"
}

// Teams returns a page of the teams whose names hold search (folded as
// names are; "" for all), in the order sort names (TeamSortCredit,
// TeamSortName or TeamSortRecent; another is TeamSortCredit), and how many
// teams match. Hidden teams are left out.
func (s *TeamsStore) Teams(ctx context.Context, search, sort string, limit, offset int) ([]Team, int, error) {
	order, ok := teamOrders[sort]
	if !ok {
		order = teamOrders[TeamSortCredit]
	}
	limit, offset = min(max(limit, 1), 500), max(offset, 0)
	pattern := likeKey(search)
	var total int
	q := s.pool
	if err := q.QueryRow(ctx, `SELECT count(*) FROM teams t WHERE NOT t.hidden AND t.name_key LIKE $1`, pattern).
		Scan(&total); err != nil {
		return nil, 0, op("teams", err)
	}
	// The page first: the members are counted for its teams only.
	rows, _ := q.Query(ctx, `
		WITH page AS MATERIALIZED (SELECT t.id FROM teams t WHERE NOT t.hidden AND t.name_key LIKE $1
			ORDER BY `+order+` LIMIT $2 OFFSET $3)
		SELECT `+teamColumns+` FROM page JOIN teams t USING (id) ORDER BY `+order, pattern, limit, offset)
	ts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Team, error) { return scanTeam(r) })
	return ts, total, op("teams", err)
}

// Mine returns the team the volunteer is in (hidden or not), whether they
// are its founder and since when; false when they are in none.
func (s *TeamsStore) Mine(ctx context.Context, userID int64) (MyTeam, bool, error) {
	var my MyTeam
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT team_id, founder, first_day::timestamp AT TIME ZONE 'UTC'
		FROM team_members WHERE user_id = $1 AND until_day IS NULL`, userID).Scan(&id, &my.Founder, &my.Since)
	if errors.Is(err, pgx.ErrNoRows) {
		return MyTeam{}, false, nil
	}
	if err == nil {
		my.Since = my.Since.UTC()
		my.Team, err = s.team(ctx, s.pool, id, true)
	}
	if err != nil {
		return MyTeam{}, false, op("my team", err)
	}
	return my, true, nil
}

// TeamMembers returns the handles of the team's current members whose
// public profile is public, in order, at most limit. (Team counts them
// all.)
func (s *TeamsStore) TeamMembers(ctx context.Context, teamID int64, limit int) ([]string, error) {
	// Planned for this team each time (pgx.QueryExecModeExec): a large
	// team's handles are found walking the public profiles in handle order,
	// a small team's from its members. The generic plan of a prepared
	// statement, which PostgreSQL takes after five runs, is the small
	// team's: for a team of 5,000 it probed 5,000 profiles (25-43 ms warm at
	// 50 M rows, against 2.8 ms).
	rows, _ := s.pool.Query(ctx, `
		SELECT p.handle FROM team_members m JOIN public_profiles p ON p.user_id = m.user_id
			JOIN users u ON u.id = m.user_id
		WHERE m.team_id = $1 AND m.until_day IS NULL AND p.public AND u.disabled_at IS NULL
		ORDER BY p.handle LIMIT $2`, pgx.QueryExecModeExec, teamID, max(limit, 0))
	handles, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return handles, op("team members", err)
}

// TeamMemberList returns the team's other current members, longest
// standing first, each with the handle of their public profile if it is
// public, for the founder's hand-over. ErrNotFounder for anyone but the founder,
// ErrNotFound for no such team.
func (s *TeamsStore) TeamMemberList(ctx context.Context, userID, teamID int64) ([]TeamMemberEntry, error) {
	var out []TeamMemberEntry
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := founderOf(ctx, tx, userID, teamID); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, `
			SELECT m.user_id, coalesce(p.handle, '') FROM team_members m
				LEFT JOIN public_profiles p ON p.user_id = m.user_id AND p.public
			WHERE m.team_id = $1 AND m.until_day IS NULL AND m.user_id <> $2
			ORDER BY m.joined_at, m.user_id`, teamID, userID)
		var err error
		out, err = pgx.CollectRows(rows, pgx.RowToStructByPos[TeamMemberEntry])
		return err
	})
	return out, op("team member list", err)
}

// TeamHistory returns the team's credit per settled day from–to
// (inclusive), oldest first, days without credit left out, from the
// rollup only.
func (s *TeamsStore) TeamHistory(ctx context.Context, teamID int64, from, to time.Time) ([]TeamDay, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT day::timestamp AT TIME ZONE 'UTC', ec_micro / 1e6, granted_micro / 1e6
		FROM rollup_team_days
		WHERE team_id = $1 AND day BETWEEN $2::date AND $3::date AND day < rollup_settled_before()
			AND (ec_micro <> 0 OR granted_micro <> 0)
		ORDER BY day`, teamID, CivilDay(from.UTC()), CivilDay(to.UTC()))
	var d TeamDay
	var out []TeamDay
	_, err := pgx.ForEachRow(rows, []any{&d.Day, &d.Estimated, &d.Confirmed}, func() error {
		d.Day = d.Day.UTC()
		out = append(out, d)
		return nil
	})
	return out, op("team history", err)
}
