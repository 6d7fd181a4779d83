package accounting

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// labelColumn is a computer's label (Computer.Label) in SQL, for hosts h.
const labelColumn = `coalesce(nullif(h.nickname, ''), nullif(h.domain_name, ''), 'Computer ' || h.id)`

// Locations returns the volunteer's locations, Default first and the
// named ones by name, each with the computers at it; ErrUnreadablePrefs
// when the stored values of one of them cannot be used.
func (s *ComputersStore) Locations(ctx context.Context, userID int64) ([]Location, error) {
	prefs, err := s.Preferences(ctx, userID)
	if err != nil {
		return nil, op("locations", err)
	}
	out := []Location{{Name: DefaultLocation, Preset: prefs.Preset, Compute: prefs.Compute}}
	rows, _ := s.pool.Query(ctx, `
		SELECT id, name, preset, prefs, mod_time FROM locations WHERE user_id = $1 ORDER BY lower(name), id`, userID)
	var l Location
	var raw []byte
	var modTime time.Time
	_, err = pgx.ForEachRow(rows, []any{&l.ID, &l.Name, &l.Preset, &raw, &modTime}, func() error {
		var odd string
		l.Compute, odd = decodeCompute(raw, modTime)
		out = append(out, l)
		return unreadablePrefs(odd)
	})
	if err != nil {
		return nil, op("locations", err)
	}
	rows, _ = s.pool.Query(ctx, `SELECT h.id, `+labelColumn+`, coalesce(h.location_id, 0) FROM hosts h
		WHERE h.user_id = $1 ORDER BY lower(`+labelColumn+`), h.id`, userID)
	var c ComputerName
	var at int64
	_, err = pgx.ForEachRow(rows, []any{&c.ID, &c.Label, &at}, func() error {
		for i := range out {
			if out[i].ID == at {
				out[i].Computers = append(out[i].Computers, c)
			}
		}
		return nil
	})
	return out, op("locations", err)
}

// SaveLocation adds a named location, or renames the one named renameFrom
// when that is not empty. A new location starts with the Default
// location's preferences, or the standard preset if the volunteer never
// chose them; Default stays as it is. Neither changes what any computer
// not at the location is sent. A bad or taken name, a 9th location or an
// unknown renameFrom is a *ValidationError (fields "name", "rename_from")
// and changes nothing.
func (s *ComputersStore) SaveLocation(ctx context.Context, userID int64, name, renameFrom string) error {
	name, renameFrom = strings.TrimSpace(name), strings.TrimSpace(renameFrom)
	v := validation{}
	checkLocationName(v, "name", name)
	if err := v.err(); err != nil {
		return op("save location", err)
	}
	return op("save location", s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
			return err
		}
		var n int
		var taken bool
		var fromID *int64
		err := tx.QueryRow(ctx, `SELECT count(*),
				coalesce(bool_or(lower(name) = lower($2) AND lower(name) <> lower($3)), false),
				min(id) FILTER (WHERE lower(name) = lower($3))
			FROM locations WHERE user_id = $1`, userID, name, renameFrom).Scan(&n, &taken, &fromID)
		if err != nil {
			return err
		}
		v.check(!taken, "name", locale.M("locations.taken"))
		if renameFrom != "" {
			v.check(fromID != nil, "rename_from", locale.M("locations.unknown_rename"))
		} else {
			v.check(n < MaxLocations, "name", locale.M("locations.too_many", "Count", MaxLocations))
		}
		if err := v.err(); err != nil {
			return err
		}
		if fromID != nil {
			return renameLocation(ctx, tx, userID, *fromID, name)
		}
		standard, err := json.Marshal(presets[PresetStandard])
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO locations (user_id, name, preset, prefs)
			SELECT $1, $2, coalesce(cp.preset, $3), coalesce(cp.prefs, $4::jsonb)
			FROM (SELECT) AS one LEFT JOIN compute_prefs cp ON cp.user_id = $1`, userID, name, PresetStandard, standard)
		return err
	}))
}

// renameLocation renames a location; the venue its computers get changes,
// so does its modification time. Other computers are sent the same.
func renameLocation(ctx context.Context, tx pgx.Tx, userID, id int64, name string) error {
	_, err := tx.Exec(ctx, `UPDATE locations SET name = $3,
		mod_time = CASE WHEN name = $3 THEN mod_time ELSE now() END
		WHERE user_id = $1 AND id = $2`, userID, id, name)
	return err
}

// DeleteLocation deletes one of the volunteer's named locations; its
// computers move to Default, and no other computer is sent anything new.
// An unknown name is a *ValidationError (field "name") and changes
// nothing.
func (s *ComputersStore) DeleteLocation(ctx context.Context, userID int64, name string) error {
	return op("delete location", s.tx(ctx, func(tx pgx.Tx) error {
		id, err := locationID(ctx, tx, userID, name, "name")
		if err != nil || id == nil {
			return cmp.Or[error](err, &ValidationError{Fields: map[string]locale.Msg{"name": locale.M("locations.unknown")}})
		}
		b := &pgx.Batch{}
		b.Queue(`UPDATE hosts SET location_id = NULL WHERE user_id = $1 AND location_id = $2`, userID, *id)
		b.Queue(`DELETE FROM locations WHERE user_id = $1 AND id = $2`, userID, *id)
		return tx.SendBatch(ctx, b).Close()
	}))
}

// locationID returns the id of the volunteer's location by name (in any
// letter case), nil for Default ("" or DefaultLocation). An unknown name
// is a *ValidationError under field.
func locationID(ctx context.Context, tx pgx.Tx, userID int64, name, field string) (*int64, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, DefaultLocation) {
		return nil, nil
	}
	var id int64
	err := tx.QueryRow(ctx, `SELECT id FROM locations WHERE user_id = $1 AND lower(name) = lower($2) FOR UPDATE`,
		userID, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &ValidationError{Fields: map[string]locale.Msg{field: locale.M("locations.unknown")}}
	}
	return &id, err
}

// SetLocationPrefs stores the compute preset of one of the volunteer's
// locations ("" or DefaultLocation: Default, as SetComputePrefs). An
// unknown location is a *ValidationError (field "location"), bad values
// as SetComputePrefs; neither changes anything, nor do stored values that
// cannot be read (ErrUnreadablePrefs), which are kept.
func (s *ComputersStore) SetLocationPrefs(ctx context.Context, userID int64, location, preset string, custom ComputePrefs) error {
	values, err := presetValues(preset, custom)
	if err != nil {
		return op("set location preferences", err)
	}
	return op("set location preferences", s.tx(ctx, func(tx pgx.Tx) error {
		id, err := locationID(ctx, tx, userID, location, "location")
		if err != nil {
			return err
		}
		if id == nil {
			return setDefaultPrefs(ctx, tx, userID, preset, values)
		}
		if err := storedReadable(ctx, tx, `SELECT prefs FROM locations WHERE id = $1`, *id); err != nil {
			return err
		}
		raw, err := json.Marshal(values)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE locations l SET preset = $3, prefs = $4,
			mod_time = CASE WHEN l.prefs = $4::jsonb THEN l.mod_time ELSE now() END
			WHERE user_id = $1 AND id = $2`, userID, *id, preset, raw)
		return err
	}))
}
