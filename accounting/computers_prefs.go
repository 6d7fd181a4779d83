package accounting

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// prefsJoins join, to a query whose volunteer is users row u, their compute
// preferences (cp), their named locations (l: arrays in the same order,
// by id) and their choices per project (c: two arrays in the same order)
// and per keyword (k); prefsColumns read those as one prefsRow. Default
// and each location have their own modification time.
const (
	prefsJoins = `
		LEFT JOIN compute_prefs cp ON cp.user_id = u.id
		CROSS JOIN LATERAL (
			SELECT array_agg(project_id) AS projects, array_agg(choice) AS choices
			FROM user_projects WHERE user_id = u.id) AS c
		CROSS JOIN LATERAL (
			SELECT array_agg(keyword_id) FILTER (WHERE choice = 'yes') AS yes,
				array_agg(keyword_id) FILTER (WHERE choice = 'no') AS no
			FROM user_keywords WHERE user_id = u.id) AS k
		CROSS JOIN LATERAL (
			SELECT array_agg(id ORDER BY id) AS ids, array_agg(name ORDER BY id) AS names,
				array_agg(prefs::text ORDER BY id) AS prefs, array_agg(mod_time ORDER BY id) AS mod_times
			FROM locations WHERE user_id = u.id) AS l`
	prefsColumns = `c.projects, c.choices, k.yes, k.no, cp.prefs, cp.mod_time,
		l.ids, l.names, l.prefs, l.mod_times`
)

// prefsRow receives prefsColumns: the projects the volunteer made a choice
// for and those choices, the keywords set to yes and to no (NULL when there
// are none), and the compute preferences with the time they were set (NULL
// when never chosen).
type prefsRow struct {
	projects []int64
	choices  []ProjectChoice
	yes, no  []int32
	raw      []byte
	modTime  *time.Time
	// The named locations: ids, names, values and the times the values
	// or the name last changed (NULL when none).
	locIDs      []int64
	locNames    []string
	locValues   []string
	locModTimes []time.Time
}

func (r *prefsRow) dest() []any {
	return []any{&r.projects, &r.choices, &r.yes, &r.no, &r.raw, &r.modTime, &r.locIDs, &r.locNames, &r.locValues,
		&r.locModTimes}
}

// parse returns the project choices and the rest.
func (r *prefsRow) parse() (map[int64]ProjectChoice, rpcPrefs) {
	choices := make(map[int64]ProjectChoice, len(r.projects))
	for i, id := range r.projects {
		choices[id] = r.choices[i]
	}
	p := rpcPrefs{}
	if len(r.yes)+len(r.no) > 0 {
		p.Keywords = make(map[int]KeywordAnswer, len(r.yes)+len(r.no))
	}
	for _, id := range r.yes {
		p.Keywords[int(id)] = KeywordYes
	}
	for _, id := range r.no {
		p.Keywords[int(id)] = KeywordNo
	}
	if r.modTime != nil {
		p.Compute, p.Odd = decodeCompute(r.raw, *r.modTime)
	}
	p.Venues, p.Odd = r.venues(p.Odd)
	return choices, p
}

// venues decodes the named locations, leaving out those whose values or
// names cannot be used (their computers get Default's values), and adds
// why to odd.
func (r *prefsRow) venues(odd string) ([]venue, string) {
	if len(r.locNames) != len(r.locIDs) || len(r.locValues) != len(r.locIDs) || len(r.locModTimes) != len(r.locIDs) {
		return nil, odd
	}
	var out []venue
	for i, id := range r.locIDs {
		c, bad := decodeCompute([]byte(r.locValues[i]), r.locModTimes[i])
		if bad == "" && !boinc.ValidVenueName(r.locNames[i]) {
			bad = "a location name no client can use"
		}
		if bad != "" {
			odd = strings.TrimPrefix(odd+"; location "+strconv.FormatInt(id, 10)+": "+bad, "; ")
			continue
		}
		out = append(out, venue{ID: id, Name: r.locNames[i], Compute: *c})
	}
	return out, odd
}

// Preferences returns what a volunteer chose on the settings page;
// ErrUnreadablePrefs when their stored compute preferences cannot be used.
func (s *ComputersStore) Preferences(ctx context.Context, userID int64) (Preferences, error) {
	p := Preferences{Keywords: map[int]KeywordAnswer{}}
	rows, _ := s.pool.Query(ctx, `SELECT keyword_id, choice FROM user_keywords WHERE user_id = $1`, userID)
	var id int
	var choice KeywordAnswer
	if _, err := pgx.ForEachRow(rows, []any{&id, &choice}, func() error {
		p.Keywords[id] = choice
		return nil
	}); err != nil {
		return p, op("preferences", err)
	}
	var err error
	if p.Projects, err = collectChoices(s.pool.Query(ctx,
		`SELECT project_id, choice FROM user_projects WHERE user_id = $1`, userID)); err != nil {
		return p, op("preferences", err)
	}
	var raw []byte
	var modTime time.Time
	err = s.pool.QueryRow(ctx, `SELECT preset, prefs, mod_time FROM compute_prefs WHERE user_id = $1`, userID).
		Scan(&p.Preset, &raw, &modTime)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return p, nil
	case err != nil:
		return p, op("preferences", err)
	}
	var odd string
	p.Compute, odd = decodeCompute(raw, modTime)
	return p, op("preferences", unreadablePrefs(odd))
}

// SetKeywordChoices replaces a volunteer's keyword answers: choices maps
// keyword id to an answer (KeywordMaybe is the same as absent). Unknown ids or
// answers are a *ValidationError (field "keyword-ID") and change nothing.
func (s *ComputersStore) SetKeywordChoices(ctx context.Context, userID int64, choices map[int]KeywordAnswer) error {
	v := validation{}
	var ids []int32
	var vals []string
	for id, c := range choices {
		_, known := KeywordByID(id)
		v.check(known, "keyword", locale.M("science.unknown_area"))
		v.check(c.Valid(), "keyword", locale.M("science.bad_answer"))
		if known && c != KeywordMaybe {
			ids, vals = append(ids, int32(id)), append(vals, string(c))
		}
	}
	if err := v.err(); err != nil {
		return op("set keywords", err)
	}
	return op("set keywords", s.tx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM user_keywords WHERE user_id = $1`, userID)
		b.Queue(`INSERT INTO user_keywords (user_id, keyword_id, choice)
			SELECT $1, u.id, u.choice FROM unnest($2::int[], $3::text[]) AS u (id, choice)`, userID, ids, vals)
		return tx.SendBatch(ctx, b).Close()
	}))
}

// SetProjectChoices replaces a volunteer's per-project choices: choices
// maps project ID to the Word of a ProjectChoice (always, automatic or
// never), as the settings form sends them. A project not in the catalog or
// another word is a *ValidationError and changes nothing.
func (s *ComputersStore) SetProjectChoices(ctx context.Context, userID int64, choices map[int64]string) error {
	catalog, err := s.catalog(ctx)
	if err != nil {
		return op("set project choices", err)
	}
	v := validation{}
	ids, vals := readChoices(v, catalog, choices, locale.M("settings.bad_project_answer"))
	if err := v.err(); err != nil {
		return op("set project choices", err)
	}
	return op("set project choices", dbErr(s.tx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM user_projects WHERE user_id = $1`, userID)
		b.Queue(`INSERT INTO user_projects (user_id, project_id, choice)
			SELECT $1, u.id, u.choice FROM unnest($2::bigint[], $3::text[]) AS u (id, choice)`, userID, ids, vals)
		return tx.SendBatch(ctx, b).Close()
	})))
}

// SetComputePrefs stores the Default location's compute preset: one of the named
// presets (custom is ignored), or PresetCustom with the values in custom.
// The values' modification time changes only when the values do, so that
// clients adopt them once. Bad values are a *ValidationError; stored
// values that cannot be read are ErrUnreadablePrefs and are kept.
func (s *ComputersStore) SetComputePrefs(ctx context.Context, userID int64, preset string, custom ComputePrefs) error {
	values, err := presetValues(preset, custom)
	if err != nil {
		return op("set compute preferences", err)
	}
	return op("set compute preferences", s.tx(ctx, func(tx pgx.Tx) error {
		return setDefaultPrefs(ctx, tx, userID, preset, values)
	}))
}

// presetValues returns the values of a named preset, or custom's for
// PresetCustom; bad values or an unknown preset are a *ValidationError.
func presetValues(preset string, custom ComputePrefs) (ComputePrefs, error) {
	values, ok := presets[preset]
	switch {
	case preset == PresetCustom:
		if err := custom.Validate(); err != nil {
			return values, err
		}
		values = custom
	case !ok:
		return values, &ValidationError{Fields: map[string]locale.Msg{
			"preset": locale.M("preset.unknown")}}
	}
	return values, nil
}

// setDefaultPrefs stores the Default location's preferences; their
// modification time changes only when the values do, so that clients
// adopt them once. It refuses (ErrUnreadablePrefs) to write over stored
// values that cannot be read.
func setDefaultPrefs(ctx context.Context, tx pgx.Tx, userID int64, preset string, values ComputePrefs) error {
	if err := storedReadable(ctx, tx, `SELECT prefs FROM compute_prefs WHERE user_id = $1 FOR UPDATE`, userID); err != nil {
		return err
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO compute_prefs AS cp (user_id, preset, prefs) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET preset = EXCLUDED.preset, prefs = EXCLUDED.prefs,
			mod_time = CASE WHEN cp.prefs = EXCLUDED.prefs THEN cp.mod_time ELSE now() END`,
		userID, preset, raw)
	return err
}

// storedReadable locks the stored preferences that query (with the one
// argument key) reads, and returns ErrUnreadablePrefs when they cannot be
// used; none stored is fine.
func storedReadable(ctx context.Context, tx pgx.Tx, query string, key int64) error {
	var raw []byte
	err := tx.QueryRow(ctx, query, key).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	_, odd := decodeCompute(raw, time.Time{})
	return unreadablePrefs(odd)
}

// readChoices reads choices (project ID → a ProjectChoice's Word), as the
// settings forms send them, into the projects and choices to store:
// automatic is stored as no row. A project not in catalog, or another
// word (badWord), is noted in v.
func readChoices(v validation, catalog []Project, choices map[int64]string, badWord locale.Msg) ([]int64, []string) {
	var ids []int64
	var vals []string
	for id, word := range choices {
		v.check(containsID(catalog, id), "project", locale.M("computer.choose_listed"))
		c, ok := ProjectChoiceOf(word)
		v.check(ok, "project", badWord)
		if ok && c != ChoiceAutomatic {
			ids, vals = append(ids, id), append(vals, string(c))
		}
	}
	return ids, vals
}

func containsID(ps []Project, id int64) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

// HostProjectReasons returns, per project ID, why Cobble gave the host each
// project it is asked to work for (Reason.Words says it in words).
func (s *ComputersStore) HostProjectReasons(ctx context.Context, hostID int64) (map[int64]Reason, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT project_id, reason FROM host_projects WHERE host_id = $1 AND assigned AND reason <> ''`, hostID)
	out := map[int64]Reason{}
	var id int64
	var reason string
	_, err := pgx.ForEachRow(rows, []any{&id, &reason}, func() error {
		out[id] = Reason(reason)
		return nil
	})
	return out, op("host project reasons", err)
}

// collectChoices reads rows of (project ID, choice).
func collectChoices(rows pgx.Rows, err error) (map[int64]ProjectChoice, error) {
	if err != nil {
		return nil, err
	}
	choices := map[int64]ProjectChoice{}
	var id int64
	var choice ProjectChoice
	_, err = pgx.ForEachRow(rows, []any{&id, &choice}, func() error {
		choices[id] = choice
		return nil
	})
	return choices, err
}

// execer runs a statement: a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}
