//go:build linux

package deploy

import (
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// promtool finds the alerting rules valid, and their unit tests
// (prometheus/cobble-rules.test.yml) pass: each alert fires on the series
// meant to fire it, and not on the others.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	promtool := requireTool(t, "promtool", "prometheus", "/usr/bin")
	for _, args := range [][]string{
		{"check", "rules", "cobble-rules.yml"},
		{"test", "rules", "cobble-rules.test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "prometheus"
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
	}
}

// Every cobble_ metric the rules use is one Cobble exports. A misspelt
// name would make its alert silent forever, which promtool cannot see.
func TestAlertRulesUseCobblesMetrics(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("deploy: cobble serve is not run with -short")
	}
	c := startCobble(t, "http://127.0.0.1:1/", map[string]string{"COBBLE_RECONCILE_EVERY": "0"})
	// A project gives the reconciliation gauge a series; a password reset
	// makes a delivery attempt (to the closed SMTP port), which gives the
	// mail counter one.
	c.run(t, "user", "create", "--email", "vol@example.org", "--password", "secret-pass-1")
	c.run(t, "project", "add", "--url", "https://boinc.example.org/", "--name", "Example", "--authenticator", "key")
	resp, err := http.PostForm("http://"+c.addr+"/password/forgot", url.Values{"email": {"vol@example.org"}})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("asking for a password reset: %v", describe(resp, err))
	}
	resp.Body.Close()

	var exported map[string]string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		exported = metricTypes(t, "http://"+c.metrics+"/metrics")
		if _, ok := exported["cobble_mail_sent_total"]; ok || time.Now().After(deadline) {
			break
		}
	}
	used := regexp.MustCompile(`\bcobble_[a-z_]+`).FindAllString(readFile(t, "prometheus/cobble-rules.yml"), -1)
	slices.Sort(used)
	for _, name := range slices.Compact(used) {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_count"), "_sum")
		if _, ok := exported[name]; !ok && exported[base] != "histogram" {
			t.Errorf("the rules use %s, which Cobble does not export", name)
		}
	}
}

// metricTypes scrapes url and returns each metric's name and type.
func metricTypes(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: %s, %v", url, resp.Status, err)
	}
	types := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)$`).FindAllStringSubmatch(string(body), -1) {
		types[m[1]] = m[2]
	}
	return types
}
