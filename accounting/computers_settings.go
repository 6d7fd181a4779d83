package accounting

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// ComputerSettings returns the settings of one of the volunteer's
// computers; another volunteer's (or no) computer is ErrNotFound.
func (s *ComputersStore) ComputerSettings(ctx context.Context, userID, hostID int64) (ComputerSettings, error) {
	cs := ComputerSettings{Location: DefaultLocation, Choices: map[int64]ProjectChoice{}}
	var at int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(location_id, 0) FROM hosts WHERE user_id = $1 AND id = $2`,
		userID, hostID).Scan(&at)
	if err != nil {
		return cs, op("computer settings", dbErr(err))
	}
	locs, err := s.Locations(ctx, userID)
	if err != nil {
		return cs, op("computer settings", err)
	}
	for _, l := range locs {
		cs.Locations = append(cs.Locations, l.Name)
		if l.ID == at {
			cs.Location, cs.Preset, cs.Compute = l.Name, l.Preset, l.Compute
		}
	}
	cs.Choices, err = collectChoices(s.pool.Query(ctx, `SELECT project_id, choice FROM host_project_choices
		WHERE user_id = $1 AND host_id = $2`, userID, hostID))
	return cs, op("computer settings", err)
}

// lockComputer locks one of the volunteer's computers in tx; another
// volunteer's (or no) computer is ErrNotFound.
func lockComputer(ctx context.Context, tx pgx.Tx, userID, hostID int64) error {
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM hosts WHERE user_id = $1 AND id = $2 FOR UPDATE`, userID, hostID).Scan(&id)
	return dbErr(err)
}

// lockVolunteer locks the volunteer's users row in tx, so that what tx
// counts of the volunteer's rows (certificates, reports) and then inserts
// is one step against every other transaction that locks it alike. The
// lock is FOR NO KEY UPDATE: it leaves the volunteer's other writes alone
// (the inserts that reference the row take FOR KEY SHARE), and waits only
// for another such lock or an update of the row. Take it before a
// computer's (lockComputer), as the RPC takes them. No volunteer is
// ErrNotFound.
func lockVolunteer(ctx context.Context, tx pgx.Tx, userID int64) error {
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID).Scan(&id)
	return dbErr(err)
}

// SetComputerLocation moves one of the volunteer's computers to one of
// their locations, by name ("" or DefaultLocation: Default); its next RPC
// tells the client. Another volunteer's computer is ErrNotFound; an
// unknown location is a *ValidationError (field "location").
func (s *ComputersStore) SetComputerLocation(ctx context.Context, userID, hostID int64, location string) error {
	return op("set computer location", s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockComputer(ctx, tx, userID, hostID); err != nil {
			return err
		}
		id, err := locationID(ctx, tx, userID, location, "location")
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE hosts SET location_id = $3 WHERE user_id = $1 AND id = $2`, userID, hostID, id)
		return err
	}))
}

// SetComputerName sets the nickname of one of the volunteer's computers,
// shown on Cobble's pages instead of the name its client reports and
// never sent to projects; "" clears it. Another volunteer's computer is
// ErrNotFound; a name too long or with control characters, markup or
// invalid UTF-8 is a *ValidationError (field "name").
func (s *ComputersStore) SetComputerName(ctx context.Context, userID, hostID int64, name string) error {
	name = strings.TrimSpace(name)
	v := validation{}
	checkNickname(v, name)
	return op("set computer name", s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockComputer(ctx, tx, userID, hostID); err != nil {
			return err
		}
		if err := v.err(); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE hosts SET nickname = $3 WHERE user_id = $1 AND id = $2`, userID, hostID, name)
		return err
	}))
}

// SetComputerChoices replaces the project choices of one of the
// volunteer's computers: choices maps project ID to a ProjectChoice's Word
// (automatic: the computer follows the volunteer's choices); projects left
// out follow them. Another volunteer's computer is
// ErrNotFound; a project not in the catalog or another word is a
// *ValidationError (field "project") and changes nothing.
func (s *ComputersStore) SetComputerChoices(ctx context.Context, userID, hostID int64, choices map[int64]string) error {
	catalog, err := s.catalog(ctx)
	if err != nil {
		return op("set computer choices", err)
	}
	v := validation{}
	ids, vals := readChoices(v, catalog, choices, locale.M("computer.choice_invalid"))
	return op("set computer choices", dbErr(s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockComputer(ctx, tx, userID, hostID); err != nil {
			return err
		}
		if err := v.err(); err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM host_project_choices WHERE user_id = $1 AND host_id = $2`, userID, hostID)
		b.Queue(`INSERT INTO host_project_choices (user_id, host_id, project_id, choice)
			SELECT $1, $2, u.id, u.choice FROM unnest($3::bigint[], $4::text[]) AS u (id, choice)`,
			userID, hostID, ids, vals)
		return tx.SendBatch(ctx, b).Close()
	})))
}
