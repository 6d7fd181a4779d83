package accounting

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

const projectColumns = `id, url, name, description, keywords, platforms, resources,
	authenticator, stats_url, share, status, created_at, account_email, area`

// AddProject adds p to the catalog, audited as done by Cobble itself
// (seeding, tests). A URL already there is ErrConflict.
func (s *CatalogStore) AddProject(ctx context.Context, p Project) (Project, error) {
	return s.AddProjectAs(ctx, Actor{}, p)
}

// Project returns one catalog entry, or ErrNotFound.
func (s *CatalogStore) Project(ctx context.Context, id int64) (Project, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = $1`, id)
	p, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Project])
	return p, op("project", dbErr(err))
}

// Projects returns the whole catalog, in order of addition.
func (s *CatalogStore) Projects(ctx context.Context) ([]Project, error) {
	return s.projects(ctx, s.pool)
}

func (s *core) projects(ctx context.Context, q querier) ([]Project, error) {
	rows, _ := q.Query(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY id`)
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[Project])
	return ps, op("projects", err)
}

// ProjectByURL finds a catalog entry the way clients match URLs (scheme,
// case and trailing slash do not matter), or returns ErrNotFound.
func (s *CatalogStore) ProjectByURL(ctx context.Context, u string) (Project, error) {
	ps, err := s.Projects(ctx)
	if err != nil {
		return Project{}, err
	}
	for _, p := range ps {
		if urlKey(p.URL) == urlKey(u) {
			return p, nil
		}
	}
	return Project{}, op("project", ErrNotFound)
}

// SetProjectStatus activates, pauses or retires a project, audited as done
// by Cobble itself.
func (s *CatalogStore) SetProjectStatus(ctx context.Context, id int64, status ProjectStatus) error {
	_, err := s.SetProjectStatusAs(ctx, Actor{}, id, status)
	return err
}

// urlAdvice says what a valid master URL looks like, suggesting the
// canonical form of s when that one is valid.
func urlAdvice(s string) string {
	msg := "Use an http:// or https:// URL whose host has a dot and that ends with /"
	if c := CanonicalProjectURL(s); c != s && ValidProjectURL(c) {
		return msg + ": " + c + " perhaps?"
	}
	return msg + ", such as https://einsteinathome.org/."
}

// checkWords checks a list of short words (keywords, platforms).
func checkWords(v validation, field string, words []string) {
	for _, w := range words {
		v.check(w != "" && len(w) <= 100 && Printable(w) && !strings.ContainsAny(w, "<>&"), field,
			locale.Text("Use short printable words, separated by commas."))
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
