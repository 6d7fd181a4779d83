package accounting

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// ImportSummary says what an import did.
type ImportSummary struct {
	Added     []string // "Name <url>" of each project added, paused
	Existing  []string // projects the catalog had already, left alone
	Malformed []string // "#3 Name: why", entries that could not be added
	Broken    string   // why the file could not be read to its end ("" when it could)
}

// String is a one-line summary for a person.
func (s ImportSummary) String() string {
	line := fmt.Sprintf("%s added (paused), %s already in the catalog, %s",
		Plural(len(s.Added), "project"), Plural(len(s.Existing), "project"), Plural(len(s.Malformed), "malformed entry"))
	if s.Broken != "" {
		line += "; the file stops early: " + s.Broken
	}
	return line
}

// CatalogRow is one project in the admin's catalog list.
type CatalogRow struct {
	Project
	Hosts      int64      // hosts Cobble asks to work for it now
	LastRun    *time.Time // start of its last reconciliation run
	LastStatus string     // that run's status ("" when none)
}

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
	v.check(p.AccountEmail == "" || validEmail(p.AccountEmail), "account_email",
		locale.Text("Give the email of Cobble's account on the project, such as am@example.org, or leave it empty."))
	return v.err()
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

// MaxImportEntries bounds how many projects one import reads.
const MaxImportEntries = 2000

// urlKey is how BOINC clients compare project URLs: without the scheme,
// ignoring case and a trailing slash.
func urlKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	return strings.TrimRight(s, "/")
}
