package main

import (
	"errors"
	"os/user"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/internal/testport"
)

func TestProjectEditStatusImport(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	dbURL := env["DATABASE_URL"]
	if _, _, err := runCobble(t.Context(), env, "project", "add", "--url", "https://e.example.org/", "--name", "E",
		"--authenticator", "secret"); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCobble(t.Context(), env, "project", "edit", "--url", "HTTP://E.example.org", "--name", "Einstein",
		"--keywords", "Physics, Astronomy", "--share", "50", "--account-email", "am@example.org")
	if err != nil || !strings.Contains(out, "Einstein <https://e.example.org/>: active") {
		t.Fatalf("edit: %q %v", out, err)
	}
	for _, st := range []string{"pause", "retire", "activate"} {
		if _, _, err := runCobble(t.Context(), env, "project", st, "--url", "https://e.example.org/"); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	var name, kw, email string
	var share float64
	query(t, dbURL, []any{&name, &kw, &share, &email}, "SELECT name, array_to_string(keywords, '|'), share, account_email FROM projects")
	if name != "Einstein" || kw != "6|1" || share != 50 || email != "am@example.org" {
		t.Errorf("stored %s %s %v %s", name, kw, share, email)
	}
	_, _, err = runCobble(t.Context(), env, "project", "edit", "--url", "https://e.example.org/", "--share", "lots")
	if !errors.Is(err, errUsage) {
		t.Errorf("bad share: %v", err)
	}
	_, _, err = runCobble(t.Context(), env, "project", "edit", "--url", "https://none.example.org/", "--name", "x")
	if err == nil || !strings.Contains(err.Error(), "no project in the catalog") {
		t.Errorf("unknown project: %v", err)
	}
	out, _, err = runCobble(t.Context(), env, "project", "import", "../../accounting/testdata/all_projects_list.xml")
	if err != nil || !strings.Contains(out, "3 projects added (paused), 1 project already in the catalog, 4 malformed entries") ||
		!strings.Contains(out, "malformed: #3 No URL Project: no master URL") {
		t.Errorf("import: %q %v", out, err)
	}
	if _, _, err := runCobble(t.Context(), env, "user", "create", "--email", "a@example.org", "--password", "long-enough"); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCobble(t.Context(), env, "user", "admin", "--email", "A@example.org"); err != nil || !strings.Contains(out, "is an admin") {
		t.Errorf("user admin: %q %v", out, err)
	}
	if _, _, err := runCobble(t.Context(), env, "user", "admin", "--email", "b@example.org"); err == nil {
		t.Error("user admin of nobody succeeded")
	}
	me, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	var kinds string
	var n int
	query(t, dbURL, []any{&kinds, &n}, `SELECT string_agg(kind, ',' ORDER BY id), count(*) FILTER (WHERE actor = $1)
		FROM audit_log`, "os:"+me.Username)
	want := "project_add,project_edit,project_status,project_status,project_status,project_import,admin_grant"
	if kinds != want || n != 7 {
		t.Errorf("audit kinds %s (%d by os:%s), want %s", kinds, n, me.Username, want)
	}
}

func TestServeMetricsOnTheirOwnAddress(t *testing.T) {
	t.Parallel()
	addr, metricsAddr := testport.FreeAddr(t), testport.FreeAddr(t)
	done, stop, stderr := startServe(t, dbEnv(t), "--addr", addr, "--metrics-addr", metricsAddr)
	defer stop()
	waitHealthy(t, "http://"+addr+"/", done, stderr)
	status, body := get(t.Context(), "http://"+metricsAddr+"/metrics")
	if status != 200 || !strings.Contains(body, `cobble_rpc_requests_total{outcome="ok"} 0`) {
		t.Errorf("metrics: status %d\n%.300s", status, body)
	}
	if status, _ := get(t.Context(), "http://"+addr+"/metrics"); status != 404 {
		t.Errorf("metrics on the public address: status %d", status)
	}
	if status, _ := get(t.Context(), "http://"+addr+"/readyz"); status != 200 {
		t.Errorf("readyz: status %d", status)
	}
}

func TestMetricsAddrMustBeHostPort(t *testing.T) {
	t.Parallel()
	_, _, err := runCobble(t.Context(), map[string]string{"DATABASE_URL": "postgres://127.0.0.1:1/x"}, "serve", "--metrics-addr", "nonsense")
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("serve --metrics-addr nonsense: %v", err)
	}
}
