package accounting_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
)

// testOptions hash passwords at bcrypt's lowest cost: the default costs
// most of a second a hash under the race detector.
var testOptions = accounting.Options{PasswordCost: bcrypt.MinCost}

func newStore(t *testing.T) *accounting.Store {
	t.Helper()
	return accounting.NewStore(testdb.New(t), testOptions)
}

func TestUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	u, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: " Ada@Example.org ", Password: "long-enough"})
	if err != nil {
		t.Fatal(err)
	}
	// No name was given: none is made up from the email (issue 45, item 4).
	if u.Email != "Ada@Example.org" || u.Name != "" || u.IsAdmin || u.TimeZone != "UTC" {
		t.Errorf("created %+v", u)
	}
	if _, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@EXAMPLE.org", Password: "long-enough"}); !errors.Is(err, accounting.ErrConflict) {
		t.Errorf("same email in other case: %v, want ErrConflict", err)
	}
	if _, err := s.Accounts.Login(ctx, "ADA@example.org", "long-enough"); err != nil {
		t.Errorf("login in other case: %v", err)
	}
	if _, err := s.Accounts.Login(ctx, "ada@example.org", "wrong-pass"); !errors.Is(err, accounting.ErrBadPassword) {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := s.Accounts.Login(ctx, "nobody@example.org", "long-enough"); !errors.Is(err, accounting.ErrUnknownAccount) {
		t.Errorf("unknown email: %v", err)
	}
	if _, err := s.Accounts.User(ctx, u.ID+100); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("missing user: %v", err)
	}
	var invalid *accounting.ValidationError
	_, err = s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "x", Password: "short"})
	if !errors.As(err, &invalid) || invalid.Fields["email"].IsZero() || invalid.Fields["password"].IsZero() {
		t.Errorf("invalid user: %v", err)
	}
}

// Each computer that joins gets its own authenticator; a second computer
// joining does not log the first one out.
func TestAuthenticatorsPerHost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	a, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "cpid-a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "cpid-b"))
	if err != nil {
		t.Fatal(err)
	}
	if a.HostID == b.HostID || a.Authenticator == b.Authenticator {
		t.Fatalf("two computers share host %d / authenticator", a.HostID)
	}
	for _, tok := range []string{a.Authenticator, b.Authenticator} {
		if _, err := s.Sync.Sync(ctx, accounting.SyncRequest{Authenticator: tok, Now: time.Now()}); err != nil {
			t.Errorf("authenticator rejected: %v", err)
		}
	}
}

func TestProjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://einstein.example.org/", Name: "Einstein",
		Authenticator: "k", Keywords: []int{6}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != accounting.StatusActive || p.Share != 100 || p.StatsURL != "https://einstein.example.org/stats/" ||
		len(p.Resources) != 1 || p.Resources[0] != "CPU" {
		t.Errorf("defaults not filled: %+v", p)
	}
	if _, err := s.Catalog.AddProject(ctx, accounting.Project{URL: p.URL, Name: "Again", Authenticator: "k"}); !errors.Is(err, accounting.ErrConflict) {
		t.Errorf("duplicate URL: %v", err)
	}
	got, err := s.Catalog.ProjectByURL(ctx, "HTTP://einstein.example.org")
	if err != nil || got.ID != p.ID {
		t.Errorf("ProjectByURL: %+v %v", got, err)
	}
	for _, bad := range []accounting.Project{
		{URL: "https://localhost/", Name: "n", Authenticator: "k"},
		{URL: "https://xexampleorg/", Name: "n", Authenticator: "k"},
		{URL: "https://x.example.org/?a=1&b=2/", Name: "n", Authenticator: "k"},
		{URL: "ftp://x.example.org/", Name: "n", Authenticator: "k"},
		{URL: "https://x.example.org/", Name: "", Authenticator: "k"},
		{URL: "https://x.example.org/", Name: "n", Authenticator: ""},
		{URL: "https://x.example.org/", Name: "n", Authenticator: "k", Resources: []string{"cpu"}},
		{URL: "https://x.example.org/", Name: "n", Authenticator: "k", Share: -1},
	} {
		var invalid *accounting.ValidationError
		if _, err := s.Catalog.AddProject(ctx, bad); !errors.As(err, &invalid) {
			t.Errorf("AddProject(%+v) = %v, want a ValidationError", bad, err)
		}
	}
	if err := s.Catalog.SetProjectStatus(ctx, p.ID, "gone"); err == nil {
		t.Error("unknown status accepted")
	}
	if err := s.Catalog.SetProjectStatus(ctx, p.ID+99, accounting.StatusPaused); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("missing project: %v", err)
	}
}

// Every instance, even several starting at once on a new database, ends up
// with the same signing key.
func TestSigningKeyIsCreatedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	texts := make([]string, 8)
	var wg sync.WaitGroup
	for i := range texts {
		wg.Go(func() {
			key, err := s.Sync.SigningKey(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			texts[i], _ = boinc.PublicKeyText(&key.PublicKey)
		})
	}
	wg.Wait()
	for _, text := range texts[1:] {
		if text != texts[0] {
			t.Fatal("instances got different signing keys")
		}
	}
	if key, _ := s.Sync.SigningKey(ctx); key.N.BitLen() != boinc.KeyBits {
		t.Errorf("key has %d bits", key.N.BitLen())
	}
}

// Hostile host reports are stored cleaned up, never failing the RPC: the
// host row holds valid UTF-8 without NUL bytes, texts and lists cut to
// their bounds, and numbers finite, non-negative and within range.
func TestSyncStoresHostileHostReport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, testOptions)
	if _, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"}); err != nil {
		t.Fatal(err)
	}
	req := joinRequest("ada@example.org", "first-pass", "cpid\x00\xff")
	req.Host.DomainName = string(make([]byte, 10_000))
	req.Host.ClientVersion = "8.0.2\x00"
	req.Host.OSName = "x" + strings.Repeat("é", 200) // 401 bytes: the cut at 256 splits an é
	req.Host.OSVersion = strings.Repeat("v", 300)
	req.Host.PVendor = "\xc3\x28Vendor"
	req.Host.PModel = "Model\x00\xe2\x82"
	req.Host.NCPUs = 1 << 40
	req.Host.PFPOps = -1
	req.Host.MNBytes = math.NaN()
	req.Host.TimezoneOffset = 1 << 40
	req.Host.Platforms = []string{"x86_64-pc-linux-gnu", "\x00bad\xc3", "\x00", strings.Repeat("p", 100)}
	for i := range 20 {
		req.Host.Platforms = append(req.Host.Platforms, fmt.Sprintf("extra-%d", i))
	}
	req.Host.Coprocs = []accounting.Coproc{{Type: "NVIDIA", Count: -5, PeakFLOPS: math.Inf(1)},
		{Type: "ATI\x00\xfe", Count: 1 << 40, PeakFLOPS: math.NaN()}}
	for range 20 {
		req.Host.Coprocs = append(req.Host.Coprocs, accounting.Coproc{Type: "intel_gpu", PeakFLOPS: -1})
	}
	res, err := s.Sync.Sync(ctx, req)
	if err != nil {
		t.Fatalf("hostile report failed the RPC: %v", err)
	}

	type hostRow struct {
		CPID, DomainName, ClientVersion string
		Platforms                       []string
		OSName, OSVersion               string
		PVendor, PModel                 string
		NCPUs                           int
		PFPOps, MNBytes                 float64
		TimezoneOffset                  int
		Coprocs                         []accounting.Coproc
	}
	var got hostRow
	var implausible string
	err = pool.QueryRow(ctx, `
		SELECT host_cpid, domain_name, client_version, platforms, os_name, os_version, p_vendor, p_model,
			ncpus, p_fpops, m_nbytes, timezone_offset, coprocs, implausible
		FROM hosts WHERE id = $1`, res.HostID).Scan(&got.CPID, &got.DomainName, &got.ClientVersion,
		&got.Platforms, &got.OSName, &got.OSVersion, &got.PVendor, &got.PModel, &got.NCPUs, &got.PFPOps,
		&got.MNBytes, &got.TimezoneOffset, &got.Coprocs, &implausible)
	if err != nil {
		t.Fatalf("reading the host back: %v", err)
	}
	want := hostRow{
		CPID:          "cpid\uFFFD",
		DomainName:    "",
		ClientVersion: "8.0.2",
		// The platform that is nothing but a NUL is dropped; 16 are kept.
		Platforms: append([]string{"x86_64-pc-linux-gnu", "bad\uFFFD", strings.Repeat("p", 64)},
			"extra-0", "extra-1", "extra-2", "extra-3", "extra-4", "extra-5", "extra-6", "extra-7",
			"extra-8", "extra-9", "extra-10", "extra-11", "extra-12"),
		OSName:         "x" + strings.Repeat("é", 127),
		OSVersion:      strings.Repeat("v", 256),
		PVendor:        "\uFFFD(Vendor",
		PModel:         "Model\uFFFD",
		NCPUs:          1 << 20,
		PFPOps:         0,
		MNBytes:        0,
		TimezoneOffset: 86400,
		Coprocs: []accounting.Coproc{{Type: "NVIDIA", Count: 0, PeakFLOPS: 0},
			{Type: "ATI\uFFFD", Count: 1 << 10, PeakFLOPS: 0}},
	}
	for range 14 {
		want.Coprocs = append(want.Coprocs, accounting.Coproc{Type: "intel_gpu"})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored host (-want +got):\n%s", diff)
	}
	// What was implausible is noted, in storable text.
	if !utf8.ValidString(implausible) || strings.ContainsRune(implausible, 0) ||
		!strings.Contains(implausible, "1099511627776 CPUs") || !strings.Contains(implausible, "ATI\uFFFD") {
		t.Errorf("implausible = %q, want the claims in valid UTF-8 without NUL", implausible)
	}
}

// Concurrent first RPCs from one computer create one host.
func TestConcurrentJoinsMakeOneHost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := accounting.NewStore(pool, testOptions)
	s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "same-cpid")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var hosts int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM hosts`).Scan(&hosts); err != nil || hosts != 1 {
		t.Errorf("%d hosts (err %v), want 1", hosts, err)
	}
}

func joinRequest(email, password, cpid string) accounting.SyncRequest {
	return accounting.SyncRequest{
		Email: email, PasswordHash: boinc.PasswordHash(password, email), Now: time.Now(),
		Host: accounting.HostReport{CPID: cpid, Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 2, PFPOps: 1e9},
	}
}

// A database that does not answer is ErrUnavailable, whatever the call.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	pool, err := pgxpool.New(ctx, "postgres://cobble@"+addr+"/cobble?connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := accounting.NewStore(pool, testOptions)
	_, userErr := s.Accounts.User(ctx, 1)
	_, syncErr := s.Sync.Sync(ctx, joinRequest("ada@example.org", "first-pass", "cpid"))
	for name, err := range map[string]error{"ping": s.Ping(ctx), "user": userErr, "sync": syncErr} {
		if !errors.Is(err, accounting.ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", name, err)
		}
	}
	if err := accounting.Classify(errors.New("other")); errors.Is(err, accounting.ErrUnavailable) {
		t.Errorf("Classify calls every error unavailable: %v", err)
	}
}
