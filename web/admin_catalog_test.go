package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// adminRoutes are every admin page and action of the console.
var adminRoutes = []struct{ method, path string }{
	{"GET", "/admin/projects"}, {"GET", "/admin/projects/new"}, {"POST", "/admin/projects"},
	{"GET", "/admin/projects/1/edit"}, {"POST", "/admin/projects/1"}, {"POST", "/admin/projects/import"},
	{"GET", "/admin/audit"}, {"GET", "/admin/overview"}, {"GET", "/admin/lookup?q=vol"}, {"GET", "/admin/users/1"},
	{"POST", "/admin/users/1/disable"}, {"POST", "/admin/users/1/enable"},
}

func TestAdminConsoleRefusesVisitorsAndVolunteers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(accounting.Project{URL: "https://proj.example.org/", Name: "Proj"})
	volunteer := e.login("vol@example.org", false)
	for _, rt := range adminRoutes {
		var form url.Values
		if rt.method == "POST" {
			form = url.Values{"name": {"x"}}
		}
		if status, _, h := do(t, e.browser(), rt.method, e.http.URL+rt.path, form, nil); status != http.StatusSeeOther || h.Get("Location") != "/login" {
			t.Errorf("visitor %s %s: status %d, location %q", rt.method, rt.path, status, h.Get("Location"))
		}
		if status, _, _ := do(t, volunteer, rt.method, e.http.URL+rt.path, form, nil); status != http.StatusForbidden {
			t.Errorf("volunteer %s %s: status %d", rt.method, rt.path, status)
		}
	}
}

func projectForm(fields ...string) url.Values {
	f := url.Values{"name": {"Einstein"}, "url": {"https://einstein.example.org/"}, "resources": {"CPU", "NVIDIA"},
		"share": {"100"}, "status": {"active"}, "authenticator": {"acct-key"}, "keywords": {"Physics, Astronomy"}}
	for i := 0; i+1 < len(fields); i += 2 {
		f.Set(fields[i], fields[i+1])
	}
	return f
}

func TestAdminCatalogForms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.login("admin@example.org", true)
	for _, c := range []struct {
		form  url.Values
		field string
	}{
		{projectForm("url", "https://einstein.example.org"), "perhaps?"},
		{projectForm("url", "http://localhost/x/"), "host has a dot"},
		{projectForm("name", ""), "Give the project a name"},
		{projectForm("name", "bad\xffname"), "not valid text"},
		{projectForm("description", "bell\x07"), "printable characters"},
		{projectForm("share", "lots"), "The share is a number"},
		{projectForm("share", "-3"), "The share is a number"},
		{projectForm("status", "gone"), "active, paused or retired"},
		{projectForm("authenticator", ""), "An active project needs"},
		{projectForm("keywords", "a<b"), "Unknown keyword"},
		{projectForm("account_email", "not an email"), "account_email-error"},
	} {
		status, page, _ := do(t, admin, "POST", e.http.URL+"/admin/projects", c.form, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(page, c.field) || !strings.Contains(page, "field-error") {
			t.Errorf("POST %v: status %d, want 422 with %q", c.form, status, c.field)
		}
	}
	if status, _, h := do(t, admin, "POST", e.http.URL+"/admin/projects", projectForm(), nil); status != http.StatusSeeOther || h.Get("Location") != "/admin/projects" {
		t.Fatalf("add: status %d", status)
	}
	status, page, _ := do(t, admin, "POST", e.http.URL+"/admin/projects", projectForm("url", "http://Einstein.example.org/"), nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "has a project with this URL") {
		t.Errorf("duplicate URL: status %d", status)
	}
	p, err := e.store.Catalog.ProjectByURL(context.Background(), "https://einstein.example.org/")
	if err != nil {
		t.Fatal(err)
	}
	id := itoa(p.ID)
	_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/projects/"+id+"/edit", nil, nil)
	if strings.Contains(page, "acct-key") || !strings.Contains(page, "(set; type a new one to replace it)") {
		t.Error("edit form shows the authenticator, or not that one is set")
	}
	form := projectForm("name", "Einstein@Home", "authenticator", "", "status", "paused")
	if status, _, _ := do(t, admin, "POST", e.http.URL+"/admin/projects/"+id, form, nil); status != http.StatusSeeOther {
		t.Fatalf("edit: status %d", status)
	}
	got, _ := e.store.Catalog.Project(context.Background(), p.ID)
	if got.Name != "Einstein@Home" || got.Authenticator != "acct-key" || got.Status != accounting.StatusPaused {
		t.Errorf("after edit: %+v", got)
	}
	if status, page, _ := do(t, admin, "POST", e.http.URL+"/admin/projects/"+id, projectForm("share", "x"), nil); status != http.StatusUnprocessableEntity ||
		!strings.Contains(page, "Edit Einstein@Home") {
		t.Errorf("bad edit: status %d", status)
	}
	if status, _, _ := do(t, admin, "POST", e.http.URL+"/admin/projects/999", projectForm(), nil); status != http.StatusNotFound {
		t.Errorf("edit of a missing project: status %d", status)
	}
	_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/projects", nil, nil)
	if !strings.Contains(page, "Einstein@Home") || !strings.Contains(page, "Physics, Astronomy") || !strings.Contains(page, "status-paused") {
		t.Errorf("catalog list lacks the project:\n%s", page)
	}
	_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/audit", nil, nil)
	for _, want := range []string{"project add", "project edit", "admin@example.org", "name: Einstein → Einstein@Home", "status: active → paused"} {
		if !strings.Contains(page, want) {
			t.Errorf("audit page lacks %q", want)
		}
	}
	if strings.Contains(page, "acct-key") {
		t.Error("audit page shows an authenticator")
	}
}

// upload posts a file as the multipart form field "file".
func upload(t *testing.T, c *http.Client, u string, data []byte) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "all_projects_list.xml")
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest("POST", u, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func TestAdminImportUpload(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.login("admin@example.org", true)
	data, err := os.ReadFile("../accounting/testdata/all_projects_list.xml")
	if err != nil {
		t.Fatal(err)
	}
	status, page := upload(t, admin, e.http.URL+"/admin/projects/import", data)
	if status != http.StatusOK || !strings.Contains(page, "3 projects added (paused), 1 project already in the catalog, 4 malformed entries") ||
		!strings.Contains(page, "#4 Bare Host: &#34;einstein.phys.uwm.edu&#34; is not a master URL") {
		t.Errorf("import: status %d\n%s", status, page)
	}
	status, page = upload(t, admin, e.http.URL+"/admin/projects/import", []byte("just text"))
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, "not a BOINC all_projects_list.xml") {
		t.Errorf("import of text: status %d\n%s", status, page)
	}
	_, page, _ = do(t, admin, "GET", e.http.URL+"/admin/audit?kind=project_import", nil, nil)
	if !strings.Contains(page, "project import") || !strings.Contains(page, "Rosetta@home") {
		t.Error("audit lacks the import")
	}
}
