package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// page is one page or download the history's measurement requests.
type page struct {
	name, path string
	admin      bool
	api        bool          // with the volunteer's API token instead of their session
	budget     time.Duration // the p99 the issue asks for (of the first byte for a download)
	download   bool
}

// historyPages lists what is measured on the history, with the p99 budgets.
func historyPages(hs *history) []page {
	pid, host := hs.projects[0].ID, strconv.FormatInt(hs.hostID, 10)
	year := "/api/v1/days?from=" + hs.today.AddDate(0, 0, -364).Format(time.DateOnly) + "&to=" +
		hs.today.Format(time.DateOnly) + "&by=project&limit=5000"
	report := "/admin/projects/" + strconv.FormatInt(pid, 10) + "/reconciliation"
	return []page{
		{name: "volunteer dashboard, 365 days", path: "/?days=365", budget: 50 * time.Millisecond},
		{name: "computer page", path: "/computers/" + host, budget: 50 * time.Millisecond},
		{name: "admin overview", path: "/admin/overview", admin: true, budget: 100 * time.Millisecond},
		{name: "reconciliation overview", path: "/admin/reconciliation", admin: true, budget: 100 * time.Millisecond},
		{name: "project report, 30 days", path: report + "?days=30", admin: true, budget: 200 * time.Millisecond},
		{name: "project report, 90 days", path: report + "?days=90", admin: true, budget: 200 * time.Millisecond},
		{name: "project report, 365 days", path: report + "?days=365", admin: true, budget: 200 * time.Millisecond},
		{name: "admin lookup", path: "/admin/lookup?q=" + url.QueryEscape(hs.volunteerEmail), admin: true,
			budget: 50 * time.Millisecond},
		{name: "admin host page", path: "/admin/hosts/" + host, admin: true, budget: 100 * time.Millisecond},
		{name: "history CSV", path: "/export/history.csv", budget: 200 * time.Millisecond, download: true},
		// The JSON API (issue 33): a year of days by project, from the rollups.
		{name: "API days, 365 by project", path: year, api: true, budget: 50 * time.Millisecond},
		// The public side (issue 33): every history volunteer is public
		// and listed (publishProfiles), the leaderboards' worst case.
		{name: "public profile", path: "/v/" + historyHandle(hs.volunteerID), budget: 100 * time.Millisecond},
		{name: "badge SVG", path: "/v/" + historyHandle(hs.volunteerID) + "/badge.svg", budget: 100 * time.Millisecond},
		{name: "badge PNG", path: "/v/" + historyHandle(hs.volunteerID) + "/badge.png", budget: 100 * time.Millisecond},
		{name: "leaderboards", path: "/leaderboards", budget: 100 * time.Millisecond},
		{name: "leaderboards, one area", path: "/leaderboards?area=" + strconv.Itoa(historyAreas[0]),
			budget: 100 * time.Millisecond},
		{name: "credit page, 90 days", path: "/credit?window=90", budget: 100 * time.Millisecond},
		{name: "credit JSON, 90 days", path: "/credit.json?window=90", budget: 100 * time.Millisecond},
		{name: "credit CSV, 30 days", path: "/credit.csv", budget: 100 * time.Millisecond},
	}
}

// historyAreas are the science areas of the history's projects, one each
// in turn (BOINC keyword ids: Biology and Medicine, Astronomy, Physics).
var historyAreas = []int{9, 1, 6}

// historyHandle is the public handle of a history volunteer.
func historyHandle(userID int64) string { return "history-" + strconv.FormatInt(userID, 10) }

// publishProfiles makes every volunteer of the history that run built
// public, with every part of the profile shown and listed on the
// leaderboards, unless an earlier round did.
func publishProfiles(ctx context.Context, pool *pgxpool.Pool, run string) error {
	_, err := pool.Exec(ctx, `
		INSERT INTO public_profiles (user_id, handle, public, show_totals, show_projects, show_areas, show_chart, list_me)
		SELECT id, 'history-' || id, true, true, true, true, true, true
		FROM users WHERE email LIKE format('history-%s-%%', $1::text) AND NOT is_admin
		ON CONFLICT (user_id) DO NOTHING`, run)
	if err != nil {
		return fmt.Errorf("pages: public profiles: %w", err)
	}
	return nil
}

// pageTimes is one page's measured requests.
type pageTimes struct {
	first, total []time.Duration // to the first byte of the body, and to its end
	began        []time.Time     // when each request began (kept by the mixed load only)
	bytes        int64           // of the last response
}

// visit is what a page's requests carry: an HTTP client that does not
// follow redirects, and the sessions of the history's volunteer and of an
// admin, and the volunteer's API token.
type visit struct {
	client           *http.Client
	base             string
	volunteer, admin string // session cookies
	token            string // API token
	hs               *history
	close            func()
}

// openVisit logs in as the history's volunteer and as an admin (made,
// with the public profiles and leaderboards, unless an earlier round did)
// and makes an API token; close revokes it.
func openVisit(ctx context.Context, pool *pgxpool.Pool, store *accounting.Store, base string, hs *history,
	run string, out *report) (*visit, error) {
	adminEmail := fmt.Sprintf("history-%s-admin@example.org", run)
	if err := addAdmin(ctx, pool, adminEmail); err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	if err := publishProfiles(ctx, pool, hs.run); err != nil { // the history's volunteers, of the run that built it
		return nil, err
	}
	if err := refreshBoards(ctx, store, out); err != nil {
		return nil, err
	}
	v := &visit{base: base, hs: hs, client: &http.Client{Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	var err error
	if v.volunteer, err = login(ctx, v.client, base, hs.volunteerEmail); err != nil {
		return nil, err
	}
	if v.admin, err = login(ctx, v.client, base, adminEmail); err != nil {
		return nil, err
	}
	token, err := store.API.CreateAPIToken(ctx, hs.volunteerID, "cobble-load "+run, time.Now().Truncate(time.Hour))
	if err != nil {
		return nil, fmt.Errorf("pages: API token: %w", err)
	}
	v.token = token.Secret
	v.close = func() {
		_ = store.API.RevokeAPIToken(context.WithoutCancel(ctx), hs.volunteerID, token.ID)
		v.client.CloseIdleConnections()
	}
	return v, nil
}

// get requests page p with its visitor's credentials.
func (v *visit) get(ctx context.Context, p page) (first, total time.Duration, size int64, err error) {
	auth := [2]string{"Cookie", v.volunteer}
	switch {
	case p.admin:
		auth[1] = v.admin
	case p.api:
		auth = [2]string{"Authorization", "Bearer " + v.token}
	}
	return get(ctx, v.client, v.base+strings.TrimPrefix(p.path, "/"), auth)
}

// measurePages logs in as the history's volunteer and as an admin, then
// requests each page once to warm it, then n times one after the other.
func measurePages(ctx context.Context, pool *pgxpool.Pool, store *accounting.Store, base string, hs *history,
	run string, n int, out *report) ([]time.Duration, error) {
	v, err := openVisit(ctx, pool, store, base, hs, run, out)
	if err != nil {
		return nil, err
	}
	defer v.close()
	out.printf("pages: %d sequential requests each after one not counted, server in this process; "+
		"times to the end of the body (a download: to its first byte, then to its end)\n", n)
	out.printf("  %-32s %9s %9s %9s %10s %8s\n", "page", "median", "p99", "max", "size", "budget")
	var p99s []time.Duration
	for _, p := range historyPages(hs) {
		var t pageTimes
		for i := range n + 1 {
			first, total, size, err := v.get(ctx, p)
			if err != nil {
				return nil, fmt.Errorf("pages: %s: %w", p.name, err)
			}
			if i > 0 {
				t.first, t.total = append(t.first, first), append(t.total, total)
			}
			t.bytes = size
		}
		p99s = append(p99s, out.pageLine(p, t))
	}
	return p99s, nil
}

// refreshBoards has the server compute its leaderboards now, with the
// profiles just published, and times it: the page is then timed on that
// copy, as a visitor finds it. Each instance computes its copy at start-up
// and, in the background, again after a change (looked for every five
// minutes). (With --url, store is not the
// servers': their copies are the ones they made themselves.)
func refreshBoards(ctx context.Context, store *accounting.Store, out *report) error {
	began := time.Now()
	if err := store.Public.RefreshBoards(ctx); err != nil {
		return fmt.Errorf("pages: leaderboards: %w", err)
	}
	took := time.Since(began)
	b, err := store.Public.Leaderboards(ctx)
	if err != nil {
		return fmt.Errorf("pages: leaderboards: %w", err)
	}
	out.printf("leaderboards computed in %s (in the background, at start-up and after a change), %d on the all-time board\n",
		ms(took), len(b.AllTime.Overall))
	return nil
}

// pageLine records one page's times against its budget, and returns the
// p99 it is judged by.
func (r *report) pageLine(p page, t pageTimes) time.Duration {
	times := t.total
	if p.download {
		times = t.first
	}
	p50, p99, most := quantiles(times)
	verdict := "within"
	if p99 >= p.budget {
		verdict = "OVER"
	}
	r.printf("  %-32s %9s %9s %9s %10s %8s %s\n", p.name, ms(p50), ms(p99), ms(most), kb(t.bytes),
		"<"+ms(p.budget), verdict)
	if p.download {
		p50, whole, most := quantiles(t.total)
		r.printf("  %-32s %9s %9s %9s\n", "  (to the end of the download)", ms(p50), ms(whole), ms(most))
	}
	return p99
}

// quantiles returns the median, the 99th percentile and the maximum.
func quantiles(ds []time.Duration) (p50, p99, most time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.5), at(0.99), s[len(s)-1]
}

func kb(n int64) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }

// addAdmin creates an admin who logs in with historyPassword, unless an
// earlier round did.
func addAdmin(ctx context.Context, pool *pgxpool.Pool, email string) error {
	hash, err := bcrypt.GenerateFromPassword([]byte(boinc.PasswordHash(historyPassword, email)), bcrypt.MinCost)
	if err != nil {
		return err
	}
	// Not ON CONFLICT: the email's uniqueness is kept by a trigger.
	_, err = pool.Exec(ctx, `INSERT INTO users (email, name, password_hash, is_admin)
		SELECT $1::text, 'History admin', $2, true WHERE NOT EXISTS (SELECT FROM users WHERE lower(email) = lower($1))`,
		email, string(hash))
	return err
}

// login logs in through the form and returns the session cookie.
func login(ctx context.Context, client *http.Client, base, email string) (string, error) {
	form := url.Values{"email": {email}, "password": {historyPassword}}
	req, err := http.NewRequestWithContext(ctx, "POST", base+"login", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("log in as %s: %w", email, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "cobble_session" && resp.StatusCode == http.StatusSeeOther {
			return c.Name + "=" + c.Value, nil
		}
	}
	return "", fmt.Errorf("log in as %s: status %d and no session", email, resp.StatusCode)
}

// get requests u with the header auth (a name and a value: the session's
// cookie or the API token) and returns the time to the first byte of the
// body, to its end, and its size. Anything but 200 is an error.
func get(ctx context.Context, client *http.Client, u string, auth [2]string) (first, total time.Duration, size int64, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	req.Header.Set(auth[0], auth[1])
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	var one [1]byte
	if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
		return 0, 0, 0, fmt.Errorf("GET %s: %w", u, err)
	}
	first = time.Since(start)
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, 0, err
	}
	return first, time.Since(start), n + 1, nil
}
