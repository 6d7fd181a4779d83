package main

import (
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/boinc/exporttest"
)

// The catalog, accounts and computers of fillWithTraffic.
const (
	trafficProject  = "https://proj.example.org/"
	otherProject    = "https://other.example.org/"
	trafficAccount  = "am@example.org" // Cobble's account on trafficProject
	trafficUserID   = 42               // that account's user id in the project's exports
	trafficPassword = "long-enough"
)

// trafficHost is a volunteer's computer that syncs with growing counters.
type trafficHost struct {
	email, cpid, domain string
	ncpus               int
	projects            []string
	projectHostID       int64 // the projects' id for it
	burst               int   // from this sync on, it claims 5000 more credit than it did (0: never)
	auth, token         string
}

// counters are the lifetime counters the host reports at its nth sync.
func (h *trafficHost) counters(n int) accounting.Counters {
	c := accounting.Counters{CPUEC: float64(n*h.ncpus) * 10.25, CPUTime: float64(n*h.ncpus) * 3000,
		JobsSuccess: int64(n * h.ncpus), JobsError: int64(n / 4)}
	if h.burst > 0 && n >= h.burst {
		c.CPUEC += 5000 // beyond what it could have done: clamped
	}
	return c
}

// sync is the host's nth RPC, at now; the first joins with the password.
func (h *trafficHost) sync(t *testing.T, store *accounting.Store, n int, now time.Time) {
	t.Helper()
	req := accounting.SyncRequest{Now: now, Authenticator: h.auth, HostToken: h.token,
		Host: accounting.HostReport{CPID: h.cpid, DomainName: h.domain, ClientVersion: "7.20.5", OSName: "Linux Debian",
			Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: h.ncpus, PFPOps: 3e9}}
	if h.auth == "" {
		req.Email, req.PasswordHash = h.email, boinc.PasswordHash(trafficPassword, h.email)
	}
	c := h.counters(n)
	for _, u := range h.projects {
		req.Projects = append(req.Projects, accounting.ProjectReport{URL: u, AttachedViaAM: true, HostID: h.projectHostID, Counters: &c})
	}
	res, err := store.Sync.Sync(t.Context(), req)
	if err != nil {
		t.Fatalf("sync %d of %s: %v", n, h.domain, err)
	}
	h.auth, h.token = res.Authenticator, res.HostToken
}

// exportRecord is the host as trafficProject's export lists it.
func (h *trafficHost) exportRecord(credit float64) exporttest.Host {
	sum := md5.Sum([]byte(h.cpid + trafficAccount))
	return exporttest.Host{ID: h.projectHostID, UserID: trafficUserID, TotalCredit: credit, HostCPID: hex.EncodeToString(sum[:])}
}

// fillWithTraffic gives the database at dbURL an admin and two volunteers
// whose three computers synced every 6 hours for two and a half days (the
// last 3.5 days ago) with growing counters, one claim clamped, and two
// reconciliations of trafficProject read with cobble reconcile --file:
// confirmed credit for two hosts, a missing host and an orphan.
func fillWithTraffic(t *testing.T, dbURL string) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := accounting.NewStore(pool, accounting.Options{PasswordCost: bcrypt.MinCost})
	createTrafficCatalog(t, store)
	desktop := &trafficHost{email: "ada@example.org", cpid: "cpid-ada-desktop", domain: "ada-desktop", ncpus: 8,
		projects: []string{trafficProject, otherProject}, projectHostID: 101}
	laptop := &trafficHost{email: "ada@example.org", cpid: "cpid-ada-laptop", domain: "ada-laptop", ncpus: 4,
		projects: []string{trafficProject}, projectHostID: 102}
	bob := &trafficHost{email: "bob@example.org", cpid: "cpid-bob", domain: "bob-pc", ncpus: 6,
		projects: []string{trafficProject}, projectHostID: 103, burst: 5}
	start := time.Now().Add(-6 * 24 * time.Hour).Truncate(time.Hour)
	for n := range 11 {
		for _, h := range []*trafficHost{desktop, laptop, bob} {
			h.sync(t, store, n, start.Add(time.Duration(n)*6*time.Hour))
		}
	}
	orphan := exporttest.Host{ID: 999, UserID: trafficUserID, TotalCredit: 7}
	env := map[string]string{"DATABASE_URL": dbURL}
	reconcileFromFile(t, env, start.Add(24*time.Hour),
		[]exporttest.Host{desktop.exportRecord(100), laptop.exportRecord(40), bob.exportRecord(80), orphan})
	orphan.TotalCredit = 9
	reconcileFromFile(t, env, start.Add(60*time.Hour),
		[]exporttest.Host{desktop.exportRecord(160.5), bob.exportRecord(130), orphan})
}

// createTrafficCatalog adds the accounts and projects of fillWithTraffic.
func createTrafficCatalog(t *testing.T, store *accounting.Store) {
	t.Helper()
	for _, u := range []accounting.NewUser{{Email: "admin@example.org", Name: "Admin", IsAdmin: true},
		{Email: "ada@example.org", Name: "Ada"}, {Email: "bob@example.org", Name: "Bob"}} {
		u.Password = trafficPassword
		created, err := store.Accounts.CreateUser(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		if u.Name == "Ada" {
			if err := store.Accounts.SetTimeZone(t.Context(), created.ID, "Europe/Berlin"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range []accounting.Project{
		{URL: trafficProject, Name: "Proj", Authenticator: "key-1", AccountEmail: trafficAccount, Keywords: []int{1}},
		{URL: otherProject, Name: "Other", Authenticator: "key-2"}} {
		if _, err := store.Catalog.AddProject(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
}

// reconcileFromFile runs cobble reconcile --file on an export of
// trafficProject made at exportTime.
func reconcileFromFile(t *testing.T, env map[string]string, exportTime time.Time, records []exporttest.Host) {
	t.Helper()
	dir := t.TempDir()
	tables, err := os.Create(filepath.Join(dir, "tables.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	host, err := os.Create(filepath.Join(dir, "host.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	zw := gzip.NewWriter(host)
	if err := exporttest.WriteTables(tables, exporttest.Tables{UpdateTime: exportTime.Unix()}); err != nil {
		t.Fatal(err)
	}
	if err := exporttest.WriteHostExport(zw, slices.Values(records), exporttest.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCobble(t.Context(), env, "reconcile", "--project", trafficProject, "--file", host.Name())
	if err != nil || !strings.Contains(stdout, "Proj: ok") {
		t.Fatalf("reconcile --file: %v\n%s", err, stdout)
	}
}
