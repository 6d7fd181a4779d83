package reconcile_test

import (
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/boinc/exporttest"
)

// hostile serves h on loopback as a project's stats directory, and ends
// the handlers still running when the test ends.
func hostile(t *testing.T, h func(w http.ResponseWriter, r *http.Request, done <-chan struct{})) *httptest.Server {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, r, done) }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	return srv
}

// hostileRun reconciles a project whose stats URL is srv's, with opts,
// and returns the run's error. A run that does not end within a minute
// fails the test: every hostile server here would hold it for an hour.
func hostileRun(t *testing.T, srv *httptest.Server, opts reconcile.Options) (reconcile.Run, error) {
	t.Helper()
	e := newReconEnv(t)
	p, err := e.store.Catalog.AddProject(e.ctx, accounting.Project{URL: "https://hostile.example.org/", Name: "H",
		Authenticator: "k", StatsURL: "http://hostile.example.org/stats/"})
	if err != nil {
		t.Fatal(err)
	}
	p.StatsURL = srv.URL + "/stats/" // as it is: the catalog refuses a host without a dot
	if _, err := e.pool.Exec(e.ctx, `UPDATE projects SET stats_url = $2 WHERE id = $1`, p.ID, p.StatsURL); err != nil {
		t.Fatal(err)
	}
	rec := reconcile.New(e.store, e.pool, opts)
	type result struct {
		run reconcile.Run
		err error
	}
	got := make(chan result, 1)
	go func() {
		run, err := rec.RunProject(e.ctx, p, nil, "")
		got <- result{run, err}
	}()
	select {
	case r := <-got:
		if r.run.Status != reconcile.RunFailed {
			t.Errorf("run status %q, want failed", r.run.Status)
		}
		return r.run, r.err
	case <-time.After(time.Minute):
		t.Fatal("the download still runs after a minute")
	}
	return reconcile.Run{}, nil
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one saying %q", err, want)
	}
}

// hang waits until the client goes away or the test ends.
func hang(r *http.Request, done <-chan struct{}) {
	select {
	case <-done:
	case <-r.Context().Done():
	}
}

// tables answers tables.xml with 404 (optional), so that runs go on to
// host.gz.
func tables(w http.ResponseWriter, r *http.Request) bool {
	if strings.HasSuffix(r.URL.Path, "/tables.xml") {
		http.NotFound(w, r)
		return true
	}
	return false
}

func neverAnswers(w http.ResponseWriter, r *http.Request, done <-chan struct{}) { hang(r, done) }

// stalls sends a gzip header, then nothing.
func stalls(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	if tables(w, r) {
		return
	}
	w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	w.(http.Flusher).Flush()
	hang(r, done)
}

// drips sends a compressed byte every 50 ms, forever.
func drips(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	if tables(w, r) {
		return
	}
	zw := gzip.NewWriter(w)
	zw.Write([]byte("<hosts>\n"))
	for {
		zw.Flush()
		w.(http.Flusher).Flush()
		select {
		case <-done:
			return
		case <-r.Context().Done():
			return
		case <-time.After(50 * time.Millisecond):
			zw.Write([]byte(" "))
		}
	}
}

// endless streams a gzip stream of spaces that never ends.
func endless(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	if tables(w, r) {
		return
	}
	zw := gzip.NewWriter(w)
	zw.Write([]byte("<hosts>\n"))
	spaces := []byte(strings.Repeat(" ", 1<<16))
	for {
		if _, err := zw.Write(spaces); err != nil {
			return
		}
		select {
		case <-done:
			return
		default:
		}
	}
}

// Each of these servers would hold a run for its whole hour; the download
// limits end the run early, failed.
func TestHostileExportServers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler func(http.ResponseWriter, *http.Request, <-chan struct{})
		opts    reconcile.Options
		want    string
	}{
		{"never answers", neverAnswers, reconcile.Options{StallTimeout: 300 * time.Millisecond}, "no data for 300ms"},
		{"stalls", stalls, reconcile.Options{StallTimeout: 300 * time.Millisecond}, "no data for 300ms"},
		{"drips", drips, reconcile.Options{StallTimeout: 10 * time.Second, FileTimeout: time.Second},
			"took longer than 1s"},
		{"endless gzip", endless, reconcile.Options{MaxBytes: 8 << 20}, "more than 8388608 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.opts.AllowPrivate = true
			_, err := hostileRun(t, hostile(t, tt.handler), tt.opts)
			wantErr(t, err, tt.want)
		})
	}
}

// Without AllowPrivate no download reaches a loopback address, by number
// or by a name that resolves to one.
func TestExportToPrivateAddressIsRefused(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := hostile(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		requests.Add(1)
		http.NotFound(w, r)
	})
	_, err := hostileRun(t, srv, reconcile.Options{})
	wantErr(t, err, "private")
	named := httptest.NewUnstartedServer(srv.Config.Handler)
	named.Start()
	defer named.Close()
	named.URL = strings.Replace(named.URL, "127.0.0.1", "localhost", 1)
	_, err = hostileRun(t, named, reconcile.Options{})
	wantErr(t, err, "private")
	if n := requests.Load(); n != 0 {
		t.Errorf("the loopback server got %d requests", n)
	}
}

// One project whose server never answers does not hold up the others.
func TestOneBadProjectDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	// The first project in the catalog (e.proj) hangs; a second one is fine.
	hang := hostile(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		hang(r, done)
	})
	if _, err := e.pool.Exec(e.ctx, `UPDATE projects SET stats_url = $2 WHERE id = $1`, e.proj.ID, hang.URL+"/stats/"); err != nil {
		t.Fatal(err)
	}
	good := newStatsServer(t)
	good.publish(may1, []exporttest.Host{gen(101, 42, 1000)}, 1)
	gp, err := e.store.Catalog.AddProject(e.ctx, accounting.Project{URL: "https://good.example.org/", Name: "G",
		Authenticator: "k", StatsURL: good.URL()})
	if err != nil {
		t.Fatal(err)
	}
	rec := reconcile.New(e.store, e.pool, reconcile.Options{AllowPrivate: true, Now: func() time.Time { return e.now }})
	ctx, cancel := context.WithCancel(e.ctx)
	passDone := make(chan struct{})
	go func() {
		defer close(passDone)
		rec.RunDue(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	defer func() { cancel(); <-passDone }()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		runs, err := e.rec.Runs(e.ctx, gp.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 && runs[0].Status == reconcile.RunOK {
			return
		}
	}
	t.Fatal("the good project was not reconciled while the bad one hung")
}
