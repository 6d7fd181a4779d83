package handlers

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// actor is the admin making a change through the web.
func actor(r *http.Request) accounting.Actor { return accounting.AdminActor(*currentUser(r)) }

// AdminProjects lists the catalog.
func (a *Admin) AdminProjects(w http.ResponseWriter, r *http.Request) error {
	rows, err := a.catalog.Catalog(r.Context())
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ProjectList(a.page(r, "Projects"), rows, ""))
	return nil
}

// ProjectNew shows an empty project form.
func (a *Admin) ProjectNew(w http.ResponseWriter, r *http.Request) error {
	f := views.ProjectForm{Resources: []string{accounting.ResourceCPU}, Share: "100", Status: string(accounting.StatusActive)}
	a.render(w, r, http.StatusOK, views.ProjectEdit(a.page(r, "Add a project"), f))
	return nil
}

// ProjectCreate adds a project from the form.
func (a *Admin) ProjectCreate(w http.ResponseWriter, r *http.Request) error {
	var p accounting.Project
	apply, err := readProjectForm(r)
	if err == nil {
		apply(&p)
		_, err = a.catalog.AddProjectAs(r.Context(), actor(r), p)
	}
	return a.projectSaved(w, r, "Add a project", views.ProjectForm{}, err)
}

// ProjectEditForm shows a catalog entry's form.
func (a *Admin) ProjectEditForm(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := a.catalog.Project(r.Context(), id)
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ProjectEdit(a.page(r, "Edit "+p.Name), views.NewProjectForm(p)))
	return nil
}

// ProjectUpdate saves a catalog entry's form. An empty authenticator field
// keeps the one set. A change of the URL, the account key or the account
// email needs a recent password (RecentAuth).
func (a *Admin) ProjectUpdate(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	apply, err := readProjectForm(r)
	if err == nil {
		if ok, err := a.projectKeysAuth(w, r, id); !ok || err != nil {
			return err
		}
		_, err = a.catalog.EditProject(r.Context(), actor(r), id, apply)
	}
	if err == nil || errors.Is(err, accounting.ErrNotFound) {
		return a.projectSaved(w, r, "", views.ProjectForm{}, err)
	}
	p, perr := a.catalog.Project(r.Context(), id)
	if perr != nil {
		return perr
	}
	return a.projectSaved(w, r, "Edit "+p.Name, views.ProjectForm{ID: id, HasAuthenticator: p.Authenticator != ""}, err)
}

// readProjectForm reads the posted catalog form: a field that is not
// printable text, like any other invalid field, is a ValidationError that
// the form shows beside that field.
func readProjectForm(r *http.Request) (func(*accounting.Project), error) {
	if err := parseForm(r, "description"); err != nil {
		return nil, err
	}
	return projectFromForm(r)
}

// projectSaved redirects to the catalog after a save, or re-shows the form
// with 422 and field messages.
func (a *Admin) projectSaved(w http.ResponseWriter, r *http.Request, title string, f views.ProjectForm, err error) error {
	var invalid *accounting.ValidationError
	switch {
	case errors.As(err, &invalid):
		f.Errors = invalid.Fields
	case errors.Is(err, accounting.ErrConflict):
		f.Errors = views.Fields{"url": locale.Text("The catalog has a project with this URL already (scheme, letter case and a trailing / do not matter).")}
	case err != nil:
		return err
	default:
		http.Redirect(w, r, "/admin/projects", http.StatusSeeOther)
		return nil
	}
	form := r.PostForm
	f.URL, f.Name, f.Description, f.Area = form.Get("url"), form.Get("name"), form.Get("description"), form.Get("area")
	f.Keywords, f.Platforms, f.Share = form.Get("keywords"), form.Get("platforms"), form.Get("share")
	f.Status, f.StatsURL, f.Resources = form.Get("status"), form.Get("stats_url"), form["resources"]
	f.AccountEmail = form.Get("account_email")
	a.render(w, r, http.StatusUnprocessableEntity, views.ProjectEdit(a.page(r, title), f))
	return nil
}

// projectFromForm reads the posted form into a function that sets a
// project's fields; a share that is not a number is a ValidationError.
func projectFromForm(r *http.Request) (func(*accounting.Project), error) {
	form := r.PostForm
	share, err := strconv.ParseFloat(strings.TrimSpace(form.Get("share")), 64)
	if err != nil {
		return nil, &accounting.ValidationError{Fields: map[string]locale.Msg{"share": locale.Text("The share is a number above 0, such as 100.")}}
	}
	keywords, err := accounting.ParseKeywords(form.Get("keywords"))
	if err != nil {
		return nil, err
	}
	return func(p *accounting.Project) { applyProjectForm(form, p, share, keywords) }, nil
}

func applyProjectForm(form url.Values, p *accounting.Project, share float64, keywords []int) {
	p.URL, p.Name, p.Description = form.Get("url"), form.Get("name"), form.Get("description")
	p.Area, p.StatsURL, p.AccountEmail = form.Get("area"), form.Get("stats_url"), form.Get("account_email")
	p.Keywords = keywords
	p.Platforms = accounting.ParseList(form.Get("platforms"))
	p.Resources = form["resources"]
	p.Status = accounting.ProjectStatus(form.Get("status"))
	if auth := strings.TrimSpace(form.Get("authenticator")); auth != "" {
		p.Authenticator = auth
	}
	p.Share = share
}

// maxImportUpload bounds an uploaded project list; BOINC's is about 150 kB.
const maxImportUpload = MaxRPCBody

// ProjectImport adds the projects of an uploaded all_projects_list.xml and
// shows what happened.
func (a *Admin) ProjectImport(w http.ResponseWriter, r *http.Request) error {
	file, _, err := r.FormFile("file")
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return errFormTooLarge
	case err != nil:
		return a.importFailed(w, r, "Choose an all_projects_list.xml file to import.")
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxImportUpload))
	if err != nil {
		return errBadForm
	}
	sum, err := a.catalog.ImportProjects(r.Context(), actor(r), data)
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		return a.importFailed(w, r, invalid.Fields["file"].String())
	}
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusOK, views.ImportResult(a.page(r, "Import"), sum))
	return nil
}

func (a *Admin) importFailed(w http.ResponseWriter, r *http.Request, msg string) error {
	rows, err := a.catalog.Catalog(r.Context())
	if err != nil {
		return err
	}
	a.render(w, r, http.StatusUnprocessableEntity, views.ProjectList(a.page(r, "Projects"), rows, msg))
	return nil
}

// projectKeysAuth reports whether the catalog form for project id may be
// saved: always when it leaves the project's URL, account key and account
// email as they are, else as recentAuth says (having answered when not).
func (a *Admin) projectKeysAuth(w http.ResponseWriter, r *http.Request, id int64) (bool, error) {
	change, err := a.projectKeysChange(r, id)
	if err != nil || !change {
		return err == nil, err
	}
	return a.recentAuth(w, r)
}

// projectKeysChange reports whether the posted catalog form changes
// project id's URL, account key or account email: only those need a
// recent password.
func (a *Admin) projectKeysChange(r *http.Request, id int64) (bool, error) {
	p, err := a.catalog.Project(r.Context(), id)
	if err != nil {
		return false, err
	}
	form := r.PostForm
	auth := strings.TrimSpace(form.Get("authenticator"))
	return strings.TrimSpace(form.Get("url")) != p.URL || (auth != "" && auth != p.Authenticator) ||
		!strings.EqualFold(strings.TrimSpace(form.Get("account_email")), p.AccountEmail), nil
}
