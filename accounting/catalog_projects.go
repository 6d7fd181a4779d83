package accounting

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/internal/locale"
)

// Resource names as BOINC clients spell them (case matters on the wire).
const (
	ResourceCPU      = "CPU"
	ResourceNVIDIA   = "NVIDIA"
	ResourceATI      = "ATI"
	ResourceIntelGPU = "intel_gpu"
	ResourceAppleGPU = "apple_gpu"
)

// Resources lists every processing resource Cobble assigns work for.
var Resources = []string{ResourceCPU, ResourceNVIDIA, ResourceATI, ResourceIntelGPU, ResourceAppleGPU}

// ProjectStatus says whether a project gets new hosts.
type ProjectStatus string

// A project is active (assigned to hosts), paused (hosts keep it but fetch no
// work) or retired (hosts finish their work and detach).
const (
	StatusActive  ProjectStatus = "active"
	StatusPaused  ProjectStatus = "paused"
	StatusRetired ProjectStatus = "retired"
)

// Project is one BOINC project in Cobble's catalog.
type Project struct {
	ID            int64
	URL           string // master URL, as sent to clients
	Name          string
	Description   string
	Keywords      []int    // BOINC keyword ids (see Keywords)
	Platforms     []string // empty: every platform
	Resources     []string
	Authenticator string // the shared project account's authenticator
	StatsURL      string
	Share         float64
	Status        ProjectStatus
	CreatedAt     time.Time
	// AccountEmail is the email of Cobble's shared account on the project
	// ("" if not given). Reconciliation needs it to verify that an export
	// record is a Cobble host's: the export's host_cpid is md5(the client's
	// host_cpid + this email).
	AccountEmail string
	Area         string // science area, as BOINC's project list gives it
}

// Who sees a project follows from its status, by these three rules and
// nowhere else.

// Open reports whether p takes new volunteers: the public pages list it.
func (p Project) Open() bool { return p.Status == StatusActive }

// Choosable reports whether volunteers may choose or refuse p in their
// settings: every project but a retired one (a paused one may come back).
func (p Project) Choosable() bool { return p.Status != StatusRetired }

// ReconciledFrom reports whether reconciliation reads p's credit export
// from source, a local file, or "" for p's stats URL: never for a retired
// project, and from the stats URL only when p has one.
func (p Project) ReconciledFrom(source string) bool {
	return p.Status != StatusRetired && (source != "" || p.StatsURL != "")
}

// Validate checks a catalog entry and fills defaults: CPU as the resource,
// a share of 100, active status, and master URL + "stats/" as the stats URL.
func (p *Project) Validate() error {
	p.URL = strings.TrimSpace(p.URL)
	p.Name = strings.TrimSpace(p.Name)
	p.Area = strings.TrimSpace(p.Area)
	p.StatsURL = strings.TrimSpace(p.StatsURL)
	p.Authenticator = strings.TrimSpace(p.Authenticator)
	p.AccountEmail = strings.TrimSpace(p.AccountEmail)
	if len(p.Resources) == 0 {
		p.Resources = []string{ResourceCPU}
	}
	if p.Share == 0 {
		p.Share = 100
	}
	if p.Status == "" {
		p.Status = StatusActive
	}
	if p.StatsURL == "" && p.URL != "" {
		p.StatsURL = p.URL + "stats/"
	}
	v := validation{}
	v.check(ValidProjectURL(p.URL), "url", locale.Text(urlAdvice(p.URL)))
	p.checkText(v)
	// An imported project has no account yet: it waits, paused, for one.
	v.check(p.Authenticator != "" || p.Status != StatusActive, "authenticator",
		locale.Text("An active project needs the account key of Cobble's account on it."))
	v.check(len(p.Authenticator) <= 256 && !strings.ContainsAny(p.Authenticator, "<>& \t\r\n") &&
		Printable(p.Authenticator),
		"authenticator", locale.Text("Paste the account key of Cobble's account on the project (no spaces or <>&)."))
	for _, r := range p.Resources {
		v.check(slices.Contains(Resources, r), "resources", locale.Text("Resources are CPU, NVIDIA, ATI, intel_gpu and apple_gpu."))
	}
	for _, id := range p.Keywords {
		_, ok := KeywordByID(id)
		v.check(ok, "keywords", locale.Text("Keywords are BOINC keyword ids or names, such as 11 or Protein research."))
	}
	v.check(p.Share > 0 && p.Share <= 1e6, "share", locale.Text("The share is a number above 0."))
	v.check(p.Status == StatusActive || p.Status == StatusPaused || p.Status == StatusRetired,
		"status", locale.Text("The status is active, paused or retired."))
	v.check(p.StatsURL == "" || validHTTPURL(p.StatsURL), "stats_url", locale.Text("Use an http:// or https:// URL."))
	v.check(p.AccountEmail == "" || validAccountEmail(p.AccountEmail), "account_email",
		locale.Text("Give the email of Cobble's account on the project, such as am@example.org, or leave it empty."))
	return v.err()
}

// validAccountEmail accepts one address: local part, @, a domain with a
// dot; no spaces or control characters; at most 254 bytes.
func validAccountEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && strings.Contains(domain, ".") && !strings.Contains(domain, "@") &&
		len(s) <= 254 && utf8.ValidString(s) &&
		!strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '<' || r == '>' })
}

// urlKey is how BOINC clients compare project URLs: without the scheme,
// ignoring case and a trailing slash.
func urlKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	return strings.TrimRight(s, "/")
}

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

// checkText checks the fields written for people: name, area,
// description, keywords and platforms.
func (p *Project) checkText(v validation) {
	v.check(p.Name != "" && len(p.Name) <= 200, "name", locale.Text("Give the project a name (at most 200 characters)."))
	v.check(Printable(p.Name), "name", locale.Text("Use printable characters only."))
	v.check(Printable(p.Area) && len(p.Area) <= 200, "area", locale.Text("Use at most 200 printable characters."))
	v.check(PrintableLines(p.Description) && len(p.Description) <= 10000, "description",
		locale.Text("Use at most 10,000 printable characters."))
	checkWords(v, "platforms", p.Platforms)
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
