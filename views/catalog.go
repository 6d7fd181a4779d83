package views

import (
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// ProjectForm is what the add and edit forms show and re-show. Fields hold
// the text as typed; the authenticator is never shown, only whether one is set.
type ProjectForm struct {
	ID               int64 // 0 for a new project
	URL, Name        string
	Description      string
	Area             string
	Keywords         string
	Platforms        string
	Resources        []string
	Share            string
	Status           string
	StatsURL         string
	AccountEmail     string
	HasAuthenticator bool
	Errors           Fields
}

// NewProjectForm fills the form from a catalog entry.
func NewProjectForm(p accounting.Project) ProjectForm {
	f := ProjectForm{ID: p.ID, URL: p.URL, Name: p.Name, Description: p.Description, Area: p.Area,
		Keywords: accounting.FormatKeywords(p.Keywords), Platforms: strings.Join(p.Platforms, ", "),
		Resources: p.Resources, Status: string(p.Status), StatsURL: p.StatsURL, AccountEmail: p.AccountEmail,
		HasAuthenticator: p.Authenticator != ""}
	if p.Share != 0 {
		f.Share = strconv.FormatFloat(p.Share, 'f', -1, 64)
	}
	return f
}

func (f ProjectForm) action() string {
	if f.ID == 0 {
		return "/admin/projects"
	}
	return "/admin/projects/" + itoa(f.ID)
}

func hasResource(f ProjectForm, r string) bool {
	for _, x := range f.Resources {
		if x == r {
			return true
		}
	}
	return false
}

func statuses() []string {
	return []string{string(accounting.StatusActive), string(accounting.StatusPaused), string(accounting.StatusRetired)}
}

func shareText(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func platformsText(ps []string) string {
	if len(ps) == 0 {
		return "all"
	}
	return strings.Join(ps, ", ")
}

func joinList(xs []string) string { return strings.Join(xs, ", ") }
