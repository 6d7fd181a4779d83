package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/boinc"
)

// The statistics export's files are served to anyone, with an ETag and a
// Last-Modified that a conditional GET answers with 304; a volunteer
// opts in on /settings/public, sees their id there and renews it; and no
// file holds their email, a computer's name, nickname, location or CPID.
func TestStatsServedWithConditionalGET(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newPublicEnv(t)
	form := everything("ada-l")
	form.Set("in_stats", "1")
	form.Set("stats_hosts", "1")
	e.setPublic(t, form, http.StatusSeeOther)
	_, page, _ := do(t, e.client, "GET", e.http.URL+"/settings/public", nil, nil)
	cpid := regexp.MustCompile(`[0-9a-f]{32}`).FindString(page)
	if cpid == "" || !strings.Contains(page, `action="/settings/public/stats-id"`) || !strings.Contains(page, `name="in_stats" value="1" checked`) {
		t.Fatalf("the settings page after opting in shows no id, renewal or ticked box:\n%s", page)
	}
	if _, err := e.store.Stats.Export(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}

	visitor := e.browser()
	files := map[string]string{}
	for _, name := range []string{"tables.xml", "user.gz", "team.gz", "host.gz"} {
		status, body, h := do(t, visitor, "GET", e.http.URL+"/stats/"+name, nil, nil)
		etag, modified := h.Get("ETag"), h.Get("Last-Modified")
		if status != http.StatusOK || etag == "" || modified == "" || !strings.HasPrefix(h.Get("Cache-Control"), "public") {
			t.Fatalf("GET /stats/%s: %d, headers %v", name, status, h)
		}
		files[name] = body
		for _, cond := range []http.Header{{"If-None-Match": {etag}}, {"If-Modified-Since": {modified}}} {
			if status, body, _ := do(t, visitor, "GET", e.http.URL+"/stats/"+name, nil, cond); status != http.StatusNotModified || body != "" {
				t.Errorf("GET /stats/%s with %v: %d, %d bytes; want 304", name, cond, status, len(body))
			}
		}
		if status, _, _ := do(t, visitor, "GET", e.http.URL+"/stats/"+name, nil, http.Header{"If-None-Match": {`"other"`}}); status != http.StatusOK {
			t.Errorf("GET /stats/%s with another ETag: %d, want 200", name, status)
		}
		if status, body, h := do(t, visitor, "HEAD", e.http.URL+"/stats/"+name, nil, nil); status != http.StatusOK || body != "" || h.Get("ETag") != etag {
			t.Errorf("HEAD /stats/%s: %d, %d bytes, %v", name, status, len(body), h)
		}
	}
	for _, name := range []string{"host_0.gz", "..%2fuser.gz", "user.xml"} {
		if status, _, _ := do(t, visitor, "GET", e.http.URL+"/stats/"+name, nil, nil); status != http.StatusNotFound {
			t.Errorf("GET /stats/%s: %d, want 404", name, status)
		}
	}

	sc, err := boinc.NewGzipHostScanner(strings.NewReader(files["host.gz"]))
	if err != nil {
		t.Fatal(err)
	}
	hosts := 0
	for sc.Next() {
		hosts++
	}
	all := files["tables.xml"]
	for _, name := range []string{"user.gz", "team.gz", "host.gz"} {
		zr, err := gzip.NewReader(strings.NewReader(files[name]))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(zr)
		all += string(b)
	}
	if sc.Err() != nil || hosts != 1 || !strings.Contains(all, "<name>ada-l</name>") || !strings.Contains(all, cpid) {
		t.Errorf("the export: %d hosts (%v), want Ada and her computer:\n%s", hosts, sc.Err(), all)
	}
	for _, m := range e.markers {
		if strings.Contains(all, m) {
			t.Errorf("the export holds the private marker %s", m)
		}
	}

	status, _, h := do(t, e.client, "POST", e.http.URL+"/settings/public/stats-id", url.Values{}, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/settings/public?renewed=1" {
		t.Fatalf("renewing the id: %d, %v", status, h)
	}
	if _, page, _ = do(t, e.client, "GET", e.http.URL+"/settings/public?renewed=1", nil, nil); strings.Contains(page, cpid) ||
		!bytes.Contains([]byte(page), []byte("renewed")) {
		t.Errorf("after renewing, the page still shows %s or no notice", cpid)
	}
}
