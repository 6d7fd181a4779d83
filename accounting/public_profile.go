package accounting

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// PublicProfile returns the volunteer's public profile: all off, without
// a handle, when they never set one.
func (s *PublicStore) PublicProfile(ctx context.Context, userID int64) (PublicProfile, error) {
	var p PublicProfile
	err := s.pool.QueryRow(ctx, `
		SELECT handle, public, show_totals, show_projects, show_areas, show_chart, list_me,
			in_stats, stats_hosts, coalesce(stats_cpid, '')
		FROM public_profiles WHERE user_id = $1`, userID).
		Scan(&p.Handle, &p.Public, &p.ShowTotals, &p.ShowProjects, &p.ShowAreas, &p.ShowChart, &p.ListMe,
			&p.InStats, &p.StatsHosts, &p.StatsCPID)
	if errors.Is(err, pgx.ErrNoRows) {
		return PublicProfile{}, nil
	}
	return p, op("public profile", err)
}

// SetPublicProfile saves the volunteer's public profile (StatsCPID is
// not theirs to set). The first time they opt in to the statistics
// export they get a random cross-project id and an export number, kept
// while they opt out and in again. A *ValidationError on "handle" when it
// is malformed, reserved, missing while public, or another volunteer's;
// without a handle (and off) the profile is forgotten.
func (s *PublicStore) SetPublicProfile(ctx context.Context, userID int64, p PublicProfile) error {
	if err := p.Validate(); err != nil {
		return op("set public profile", err)
	}
	if p.Handle == "" {
		_, err := s.pool.Exec(ctx, `DELETE FROM public_profiles WHERE user_id = $1`, userID)
		return op("set public profile", err)
	}
	cpid, err := newStatsCPID()
	if err != nil {
		return op("set public profile", err)
	}
	_, err = s.pool.Exec(ctx, `
		INSERT INTO public_profiles (user_id, handle, public, show_totals, show_projects, show_areas, show_chart, list_me,
			in_stats, stats_hosts, stats_cpid, stats_id, stats_since)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
			CASE WHEN $9 THEN $11 END, CASE WHEN $9 THEN nextval('stats_ids') END, CASE WHEN $9 THEN now() END)
		ON CONFLICT (user_id) DO UPDATE SET handle = excluded.handle, public = excluded.public,
			show_totals = excluded.show_totals, show_projects = excluded.show_projects,
			show_areas = excluded.show_areas, show_chart = excluded.show_chart, list_me = excluded.list_me,
			in_stats = excluded.in_stats, stats_hosts = excluded.stats_hosts,
			stats_cpid = coalesce(public_profiles.stats_cpid, excluded.stats_cpid),
			stats_id = coalesce(public_profiles.stats_id, excluded.stats_id),
			stats_since = coalesce(public_profiles.stats_since, excluded.stats_since),
			updated_at = now()`,
		userID, p.Handle, p.Public, p.ShowTotals, p.ShowProjects, p.ShowAreas, p.ShowChart, p.ListMe,
		p.InStats, p.StatsHosts, cpid)
	if err = dbErr(err); errors.Is(err, ErrConflict) {
		err = &ValidationError{Fields: map[string]locale.Msg{"handle": locale.M("public.handle_taken")}}
	}
	if err == nil {
		s.forgetBoards()
	}
	return op("set public profile", err)
}

// publicUser returns the volunteer whose public profile has the handle,
// with the profile and their language; ErrNotFound when there is none or
// it is not public, the same error for both.
func (s *PublicStore) publicUser(ctx context.Context, handle string) (int64, PublicProfile, string, error) {
	if !ValidHandle(handle) {
		return 0, PublicProfile{}, "", ErrNotFound
	}
	var id int64
	var lang string
	p := PublicProfile{Handle: handle, Public: true}
	err := s.pool.QueryRow(ctx, `
		SELECT p.user_id, u.language, p.show_totals, p.show_projects, p.show_areas, p.show_chart, p.list_me
		FROM public_profiles p JOIN users u ON u.id = p.user_id
		WHERE p.handle = $1 AND p.public AND u.disabled_at IS NULL`, handle).
		Scan(&id, &lang, &p.ShowTotals, &p.ShowProjects, &p.ShowAreas, &p.ShowChart, &p.ListMe)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, PublicProfile{}, "", ErrNotFound
	}
	return id, p, lang, err
}

// PublicPage returns what /v/{handle} shows: only the parts the volunteer
// ticked, from the rollups. ErrNotFound when no public profile has the
// handle.
func (s *PublicStore) PublicPage(ctx context.Context, handle string) (PublicPage, error) {
	id, p, _, err := s.publicUser(ctx, handle)
	if err != nil {
		return PublicPage{}, op("public page", err)
	}
	pg := PublicPage{Profile: p}
	if pg.Through, err = s.ledger.RolledThrough(ctx); err != nil {
		return PublicPage{}, op("public page", err)
	}
	if p.ShowTotals || p.ShowProjects || p.ShowAreas {
		all, err := s.ledger.RolledProjects(ctx, id, time.Time{}, pg.Through)
		if err != nil {
			return PublicPage{}, op("public page", err)
		}
		pg.fill(all)
	}
	if p.ShowChart {
		if pg.Days, err = s.ledger.RolledDays(ctx, id, pg.Through.AddDate(0, 0, -364), pg.Through); err != nil {
			return PublicPage{}, op("public page", err)
		}
	}
	return pg, nil
}

// fill sets the parts of the page that the projects' totals give, as
// far as they are ticked.
func (pg *PublicPage) fill(all []RolledProject) {
	p := pg.Profile
	if p.ShowTotals {
		for _, r := range all {
			pg.Totals.Estimated += r.Estimated
			pg.Totals.Confirmed += r.Confirmed
		}
	}
	if p.ShowProjects {
		pg.Projects = all
	}
	if p.ShowAreas {
		pg.Areas = ByArea(all)
	}
}

// Badge returns what the volunteer's badge shows, from the rollups, as
// far as the profile allows: the confirmed credit (all time and the last
// 30 days) only with its totals ticked, the top three science areas only
// with its areas ticked, else the handle alone. ErrNotFound when no
// public profile has the handle.
func (s *PublicStore) Badge(ctx context.Context, handle string) (Badge, error) {
	id, p, lang, err := s.publicUser(ctx, handle)
	if err != nil {
		return Badge{}, op("badge", err)
	}
	b := Badge{Handle: p.Handle, Language: lang, Totals: p.ShowTotals}
	if b.Through, err = s.ledger.RolledThrough(ctx); err != nil {
		return Badge{}, op("badge", err)
	}
	if !p.ShowTotals && !p.ShowAreas {
		return b, nil
	}
	all, err := s.ledger.RolledProjects(ctx, id, time.Time{}, b.Through)
	if err != nil {
		return Badge{}, op("badge", err)
	}
	if p.ShowAreas {
		for _, a := range ByArea(all) {
			if len(b.Areas) < 3 && a.Confirmed > 0 {
				b.Areas = append(b.Areas, a.Area)
			}
		}
	}
	if !p.ShowTotals {
		return b, nil
	}
	recent, err := s.ledger.RolledProjects(ctx, id, b.Through.AddDate(0, 0, -29), b.Through)
	if err != nil {
		return Badge{}, op("badge", err)
	}
	for _, r := range all {
		b.Confirmed += r.Confirmed
	}
	for _, r := range recent {
		b.Last30 += r.Confirmed
	}
	return b, nil
}

// RenewStatsID gives the volunteer a new random cross-project id and a
// new number in the statistics export, which start a new listing there
// from the next export on: nothing ties it to the old one. ErrNotFound
// when they never opted in.
func (s *PublicStore) RenewStatsID(ctx context.Context, userID int64) error {
	cpid, err := newStatsCPID()
	if err != nil {
		return op("renew stats id", err)
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE public_profiles SET stats_cpid = $2, stats_id = nextval('stats_ids'), stats_since = now(), updated_at = now()
		WHERE user_id = $1 AND stats_cpid IS NOT NULL`, userID, cpid)
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("renew stats id", err)
}

// newStatsCPID returns a random cross-project id: 32 hex digits that say
// nothing of the volunteer.
func newStatsCPID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
