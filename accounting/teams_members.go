package accounting

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Memberships. Each change of a team's members first locks the team's
// row: the trigger of migration 028 that removes an empty team and hands
// over a team whose founder left then sees every other change of the
// team's members committed.

// volunteerToday returns the volunteer's day of now, in their time zone
// (as LedgerStore.Today), locking the volunteer: their memberships change
// one at a time.
func (s *core) volunteerToday(ctx context.Context, tx pgx.Tx, userID int64, now time.Time) (time.Time, error) {
	var tz string
	if err := tx.QueryRow(ctx, `SELECT time_zone FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID).Scan(&tz); err != nil {
		return time.Time{}, dbErr(err)
	}
	y, m, d := now.In(s.location(tz)).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
}

// lockTeam locks a team's row, FOR UPDATE or FOR SHARE: ErrNotFound
// when there is no such team or it is hidden.
func lockTeam(ctx context.Context, tx pgx.Tx, teamID int64, share bool) (open bool, err error) {
	mode := "UPDATE"
	if share {
		mode = "SHARE"
	}
	err = tx.QueryRow(ctx, `SELECT open FROM teams WHERE id = $1 AND NOT hidden FOR `+mode, teamID).Scan(&open)
	return open, dbErr(err)
}

// leaveCurrent ends the volunteer's current membership, if any, and
// returns their today. A membership that began today (or, after a move
// to a time zone further west, later) is deleted: it never held a day.
// Only the volunteer's today changes, which no rollup round has settled.
func (s *core) leaveCurrent(ctx context.Context, tx pgx.Tx, userID int64, now time.Time) (time.Time, error) {
	today, err := s.volunteerToday(ctx, tx, userID, now)
	if err != nil {
		return today, err
	}
	var teamID int64
	err = tx.QueryRow(ctx, `SELECT team_id FROM team_members WHERE user_id = $1 AND until_day IS NULL`, userID).Scan(&teamID)
	if errors.Is(err, pgx.ErrNoRows) {
		return today, nil
	}
	if err != nil {
		return today, err
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM teams WHERE id = $1 FOR UPDATE`, teamID); err != nil {
		return today, err
	}
	return today, endMembership(ctx, tx, userID, today)
}

// endMembership ends the volunteer's current membership on today.
func endMembership(ctx context.Context, tx pgx.Tx, userID int64, today time.Time) error {
	if _, err := tx.Exec(ctx, `DELETE FROM team_members WHERE user_id = $1 AND until_day IS NULL AND first_day >= $2`,
		userID, today); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE team_members SET until_day = $2 WHERE user_id = $1 AND until_day IS NULL`, userID, today)
	return err
}

// joinTeam makes the volunteer a member of the team from today, or from
// the end of their last membership if that is later (after a move to a
// time zone further west): memberships never overlap.
func joinTeam(ctx context.Context, tx pgx.Tx, userID, teamID int64, today, now time.Time, founder bool) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO team_members (user_id, team_id, first_day, joined_at, founder)
		VALUES ($1, $2, greatest($3::date, (SELECT max(until_day) FROM team_members WHERE user_id = $1)), $4, $5)`,
		userID, teamID, today, now, founder)
	return err
}

// Join makes the volunteer a member of an open team, leaving the team
// they were in. Joining the team they are in changes nothing.
// ErrNotFound for no such team, ErrTeamClosed for a closed one.
func (s *TeamsStore) Join(ctx context.Context, userID, teamID int64, now time.Time) error {
	return op("join team", s.tx(ctx, func(tx pgx.Tx) error {
		return s.join(ctx, tx, userID, teamID, now, false)
	}))
}

// join is Join, or JoinByCode's when invited.
func (s *TeamsStore) join(ctx context.Context, tx pgx.Tx, userID, teamID int64, now time.Time, invited bool) error {
	var current int64
	err := tx.QueryRow(ctx, `SELECT team_id FROM team_members WHERE user_id = $1 AND until_day IS NULL`, userID).Scan(&current)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	open, err := lockTeam(ctx, tx, teamID, true)
	switch {
	case err != nil:
		return err
	case current == teamID:
		return nil
	case !open && !invited:
		return ErrTeamClosed
	}
	today, err := s.leaveCurrent(ctx, tx, userID, now)
	if err != nil {
		return err
	}
	return joinTeam(ctx, tx, userID, teamID, today, now, false)
}

// JoinByCode makes the volunteer a member of the team whose invitation
// code this is, open or closed, and returns the team. ErrNotFound for a
// code no team has (a renewed one, say).
func (s *TeamsStore) JoinByCode(ctx context.Context, userID int64, code string, now time.Time) (Team, error) {
	if !inviteCode(code) {
		return Team{}, op("join team by code", ErrNotFound)
	}
	var id int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT id FROM teams WHERE invite_code = $1 AND NOT hidden`, code).Scan(&id); err != nil {
			return dbErr(err)
		}
		return s.join(ctx, tx, userID, id, now, true)
	})
	if err != nil {
		return Team{}, op("join team by code", err)
	}
	t, err := s.team(ctx, s.pool, id, false)
	return t, op("join team by code", err)
}

// inviteCode reports whether code looks like an invitation code: 26 of
// a–z and 2–7.
func inviteCode(code string) bool {
	return len(code) == 26 && strings.Trim(code, "abcdefghijklmnopqrstuvwxyz234567") == ""
}

// Leave ends the volunteer's membership of the team; the day's credit no
// longer counts for it, the days before stay. The last member's leaving
// removes the team; the founder's hands it to the longest-standing member
// (migration 028's trigger). ErrNotFound when they are not in that team.
func (s *TeamsStore) Leave(ctx context.Context, userID, teamID int64, now time.Time) error {
	return op("leave team", s.tx(ctx, func(tx pgx.Tx) error {
		today, err := s.volunteerToday(ctx, tx, userID, now)
		if err != nil {
			return err
		}
		var in bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM team_members
			WHERE user_id = $1 AND team_id = $2 AND until_day IS NULL)`, userID, teamID).Scan(&in); err != nil {
			return err
		}
		if !in {
			return ErrNotFound
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM teams WHERE id = $1 FOR UPDATE`, teamID); err != nil {
			return err
		}
		return endMembership(ctx, tx, userID, today)
	}))
}

// Invite returns the team's invitation code, for the founder.
// ErrNotFounder for anyone else, ErrNotFound for no such team.
func (s *TeamsStore) Invite(ctx context.Context, userID, teamID int64) (string, error) {
	var code string
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := founderOf(ctx, tx, userID, teamID); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT invite_code FROM teams WHERE id = $1`, teamID).Scan(&code)
	})
	return code, op("team invitation", err)
}

// RenewInvite gives the team a new invitation code and returns it; the
// old one no longer joins. The founder's: ErrNotFounder for anyone else,
// ErrNotFound for no such team.
func (s *TeamsStore) RenewInvite(ctx context.Context, userID, teamID int64) (string, error) {
	code := certificateCode()
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := founderOf(ctx, tx, userID, teamID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE teams SET invite_code = $2 WHERE id = $1`, teamID, code)
		return err
	})
	return code, op("renew team invitation", err)
}

// HandOver makes another current member the team's founder, and the
// founder a member. The founder's: ErrNotFounder for anyone else,
// ErrNotFound for no such team or when toUserID is not a member.
func (s *TeamsStore) HandOver(ctx context.Context, userID, teamID, toUserID int64) error {
	return op("hand team over", s.tx(ctx, func(tx pgx.Tx) error {
		if err := founderOf(ctx, tx, userID, teamID); err != nil {
			return err
		}
		if toUserID == userID {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE team_members SET founder = true
			WHERE team_id = $1 AND user_id = $2 AND until_day IS NULL`, teamID, toUserID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		_, err = tx.Exec(ctx, `UPDATE team_members SET founder = false
			WHERE team_id = $1 AND user_id = $2 AND until_day IS NULL`, teamID, userID)
		return err
	}))
}

// DeleteTeam removes the team, its memberships and its history. The
// founder's: ErrNotFounder for anyone else, ErrNotFound for no such team.
func (s *TeamsStore) DeleteTeam(ctx context.Context, userID, teamID int64) error {
	return op("delete team", s.tx(ctx, func(tx pgx.Tx) error {
		if err := founderOf(ctx, tx, userID, teamID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM teams WHERE id = $1`, teamID)
		return err
	}))
}
