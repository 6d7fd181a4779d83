package accounting

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/cobble-am/cobble/internal/locale"
)

// Founding and editing teams. A name is unique after folding (teamKey),
// and a team's texts follow the rules of text.go, stricter still against
// invisible characters (teamText).

// teamKey folds a team name for uniqueness: compatibility forms
// (fullwidth letters, ligatures) to their plain letters, case folded,
// and runs of spaces made one.
func teamKey(name string) string {
	k := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(name)))
	return strings.Join(strings.Fields(k), " ")
}

// teamText reports whether s is text a team may show: Printable (or
// PrintableLines when lines), and without the invisible format
// characters (zero-width spaces and joiners, soft hyphens, tags) nor
// private-use characters, with which a name can look like another.
func teamText(s string, lines bool) bool {
	ok := Printable(s)
	if lines {
		ok = PrintableLines(s)
	}
	return ok && !strings.ContainsFunc(s, func(r rune) bool { return unicode.In(r, unicode.Cf, unicode.Co) })
}

// clean trims a team's texts; the description keeps its lines.
func (nt NewTeam) clean() NewTeam {
	nt.Name = strings.TrimSpace(nt.Name)
	nt.Country = strings.TrimSpace(nt.Country)
	nt.URL = strings.TrimSpace(nt.URL)
	nt.Description = strings.TrimSpace(nt.Description)
	return nt
}

// Validate checks a team as a founder wrote it (after clean): a
// *ValidationError naming the fields name, type, country, url and
// description. Markup is not refused: it is plain text, shown escaped.
func (nt NewTeam) Validate() error {
	v := validation{}
	checkTeamName(v, nt.Name)
	v.check(nt.Type >= TeamTypeClub && nt.Type <= TeamTypeGovernment, "type", locale.M("errors.team.type"))
	for _, f := range []struct {
		field, text string
		most        int
		lines       bool
	}{{"country", nt.Country, MaxTeamCountry, false}, {"url", nt.URL, MaxTeamURL, false},
		{"description", nt.Description, MaxTeamDescription, true}} {
		v.check(teamText(f.text, f.lines), f.field, locale.M("errors.team.chars"))
		v.check(utf8.RuneCountInString(f.text) <= f.most, f.field, locale.M("errors.team.too_long", "Max", f.most))
	}
	v.check(nt.URL == "" || webAddress(nt.URL), "url", locale.M("errors.team.url"))
	return v.err()
}

// checkTeamName checks a team's name into v, on the field "name".
func checkTeamName(v validation, name string) {
	v.check(name != "", "name", locale.M("errors.team.name_empty"))
	v.check(teamText(name, false), "name", locale.M("errors.team.chars"))
	v.check(utf8.RuneCountInString(name) <= MaxTeamName, "name", locale.M("errors.team.too_long", "Max", MaxTeamName))
	v.check(teamKey(name) != "", "name", locale.M("errors.team.name_empty"))
}

// webAddress reports whether s is an absolute http or https address with
// a host, and no spaces.
func webAddress(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil &&
		!strings.ContainsFunc(s, unicode.IsSpace)
}

// nameTaken turns the unique violation of teams.name_key into the
// *ValidationError on "name" that a founder reads.
func nameTaken(err error) error {
	if errors.Is(dbErr(err), ErrConflict) && strings.Contains(dbErr(err).Error(), "name_key") {
		return &ValidationError{Fields: map[string]locale.Msg{"name": locale.M("errors.team.name_taken")}}
	}
	return err
}

// CreateTeam founds a team with the volunteer as its founder and first
// member, leaving the team they were in (one team at a time), and returns
// it. A *ValidationError for bad input or a taken name (field "name"),
// ErrEmailUnconfirmed without a confirmed email address, ErrTooManyTeams
// after MaxTeamsPerDay teams founded in the last 24 hours.
func (s *TeamsStore) CreateTeam(ctx context.Context, userID int64, nt NewTeam, now time.Time) (Team, error) {
	nt = nt.clean()
	if err := nt.Validate(); err != nil {
		return Team{}, op("create team", err)
	}
	var id int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := countFounding(ctx, tx, userID, now); err != nil {
			return err
		}
		today, err := s.leaveCurrent(ctx, tx, userID, now)
		if err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `
			INSERT INTO teams (name, name_key, type, country, url, description, open, created_by, invite_code, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
			nt.Name, teamKey(nt.Name), nt.Type, nt.Country, nt.URL, nt.Description, nt.Open, userID,
			certificateCode(), now).Scan(&id)
		if err != nil {
			return nameTaken(err)
		}
		return joinTeam(ctx, tx, userID, id, today, now, true)
	})
	if err != nil {
		return Team{}, op("create team", err)
	}
	t, err := s.team(ctx, s.pool, id, true)
	return t, op("create team", err)
}

// countFounding checks that the volunteer may found a team at now, and
// counts the founding: ErrEmailUnconfirmed, ErrTooManyTeams. Under the
// volunteer's lock, teams founded at once are counted one after the
// other; a founding counts whether or not its team outlives the day.
func countFounding(ctx context.Context, tx pgx.Tx, userID int64, now time.Time) error {
	if err := lockVolunteer(ctx, tx, userID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM team_foundings WHERE user_id = $1 AND founded_at <= $2`,
		userID, now.Add(-24*time.Hour)); err != nil {
		return err
	}
	var confirmed bool
	var founded int
	if err := tx.QueryRow(ctx, `
		SELECT email_confirmed_at IS NOT NULL, (SELECT count(*) FROM team_foundings WHERE user_id = $1)
		FROM users WHERE id = $1`, userID).Scan(&confirmed, &founded); err != nil {
		return err
	}
	switch {
	case !confirmed:
		return ErrEmailUnconfirmed
	case founded >= MaxTeamsPerDay:
		return fmt.Errorf("%w: at most %d a day", ErrTooManyTeams, MaxTeamsPerDay)
	}
	// One a microsecond at most, so that each counts.
	_, err := tx.Exec(ctx, `INSERT INTO team_foundings (user_id, founded_at) VALUES ($1, greatest($2,
		(SELECT max(founded_at) + interval '1 microsecond' FROM team_foundings WHERE user_id = $1)))`, userID, now)
	return err
}

// EditTeam changes the team's name, type, country, address, description
// and openness: the founder's. A *ValidationError as CreateTeam's,
// ErrNotFounder for anyone else, ErrNotFound for no such team.
func (s *TeamsStore) EditTeam(ctx context.Context, userID, teamID int64, nt NewTeam) error {
	nt = nt.clean()
	if err := nt.Validate(); err != nil {
		return op("edit team", err)
	}
	return op("edit team", s.tx(ctx, func(tx pgx.Tx) error {
		if err := founderOf(ctx, tx, userID, teamID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			UPDATE teams SET name = $2, name_key = $3, type = $4, country = $5, url = $6, description = $7, open = $8
			WHERE id = $1`, teamID, nt.Name, teamKey(nt.Name), nt.Type, nt.Country, nt.URL, nt.Description, nt.Open)
		return nameTaken(err)
	}))
}

// founderOf locks the team and checks that the volunteer is its founder:
// ErrNotFound for no such team (or a hidden one), ErrNotFounder for
// anyone else.
func founderOf(ctx context.Context, tx pgx.Tx, userID, teamID int64) error {
	var founder bool
	err := tx.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM team_members
			WHERE team_id = t.id AND user_id = $2 AND until_day IS NULL AND founder)
		FROM teams t WHERE t.id = $1 AND NOT t.hidden FOR UPDATE`, teamID, userID).Scan(&founder)
	if err != nil {
		return dbErr(err)
	}
	if !founder {
		return ErrNotFounder
	}
	return nil
}
