package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// fieldErrorID matches the id of a field's error message (views.fieldError).
var fieldErrorID = regexp.MustCompile(`class="field-error" id="([a-z_]+)-error"`)

// checkErrorsTied fails t unless each error message of a field on page is
// tied to its field: the field of that name says aria-invalid and points
// at the message with aria-describedby. It returns how many it checked.
func checkErrorsTied(t *testing.T, what, page string) int {
	t.Helper()
	n := 0
	for _, m := range fieldErrorID.FindAllStringSubmatch(page, -1) {
		field := regexp.MustCompile(`<(input|select|textarea) [^>]*name="` + m[1] + `"[^>]*>`).FindString(page)
		if field == "" {
			continue // an error of a group of fields, shown above them
		}
		n++
		if !strings.Contains(field, `aria-describedby="`+m[1]+`-error"`) || !strings.Contains(field, `aria-invalid="true"`) {
			t.Errorf("%s: the error of %q is not tied to its field: %s", what, m[1], field)
		}
	}
	return n
}

// Every form's errors are tied to their fields: sign-up, log-in, compute
// settings and an admin's project form.
func TestFormErrorsAreTiedToFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.login("admin@example.org", true)
	volunteer := e.login("vol@example.org", false)
	for _, c := range []struct {
		what   string
		client *http.Client
		path   string
		form   url.Values
		fields int
	}{
		{"sign-up", e.browser(), "/signup", url.Values{"email": {"nope"}, "password": {"short"}, "name": {"a\x00"}}, 1},
		{"compute", volunteer, "/settings/compute", url.Values{"preset": {"custom"}, "max_ncpus_pct": {"150"},
			"cpu_usage_limit": {"lots"}, "start_hour": {"0"}, "end_hour": {"0"}, "disk_max_used_gb": {"10"},
			"disk_max_used_pct": {"50"}, "ram_max_used_busy_pct": {"50"}, "ram_max_used_idle_pct": {"90"}}, 1},
		{"project", admin, "/admin/projects", url.Values{"name": {""}, "url": {"ftp://x"}, "share": {"-1"}, "status": {"active"}}, 3},
	} {
		status, page, _ := do(t, c.client, "POST", e.http.URL+c.path, c.form, nil)
		if status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", c.what, status)
		}
		if n := checkErrorsTied(t, c.what, page); n < c.fields {
			t.Errorf("%s: %d field errors, want at least %d", c.what, n, c.fields)
		}
	}
	_, page, _ := do(t, e.browser(), "POST", e.http.URL+"/login", url.Values{"email": {"vol@example.org"}, "password": {"wrong-password"}}, nil)
	for _, f := range []string{"email", "password"} {
		field := regexp.MustCompile(`<input id="` + f + `"[^>]*>`).FindString(page)
		if !strings.Contains(page, `id="login-error"`) || !strings.Contains(field, `aria-describedby="login-error"`) {
			t.Errorf("log-in: the error is not tied to the %s field: %s", f, field)
		}
	}
}
