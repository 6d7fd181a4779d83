package boinc

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStatsSource(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/stats/host.gz":
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Last-Modified", "Mon, 02 Nov 2026 10:00:00 GMT")
			w.Write([]byte(strings.Repeat("x", 1000)))
		case r.URL.Path == "/moved/host.gz":
			http.Redirect(w, r, "/stats/host.gz", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/loop/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/loop/"))
			http.Redirect(w, r, "/loop/"+strconv.Itoa(n+1), http.StatusFound)
		case r.URL.Path == "/stats/broken.gz":
			http.Error(w, "oops", http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	src := NewStatsSource(srv.URL+"/stats", DownloadLimits{File: 5 * time.Second, MaxBytes: 1 << 20, AllowPrivate: true})

	f, v, err := src.Open(ctx, "host.gz", Validators{})
	if err != nil || v.ETag != `"v1"` || v.LastModified == "" {
		t.Fatalf("open: %v %+v", err, v)
	}
	if b, err := io.ReadAll(f); err != nil || len(b) != 1000 {
		t.Errorf("read %d bytes, %v", len(b), err)
	}
	f.Close()
	if _, _, err := src.Open(ctx, "host.gz", v); !errors.Is(err, ErrExportUnchanged) {
		t.Errorf("conditional GET: %v, want ErrExportUnchanged", err)
	}
	if _, _, err := src.Open(ctx, "host_0.gz", Validators{}); !errors.Is(err, ErrExportMissing) {
		t.Errorf("missing file: %v, want ErrExportMissing", err)
	}
	if _, _, err := src.Open(ctx, "broken.gz", Validators{}); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("server error: %v", err)
	}
	if f, _, err := NewStatsSource(srv.URL+"/moved/", DownloadLimits{File: time.Second, MaxBytes: 1 << 20, AllowPrivate: true}).Open(ctx, "host.gz", Validators{}); err != nil {
		t.Errorf("one redirect: %v", err)
	} else {
		f.Close()
	}
	if _, _, err := NewStatsSource(srv.URL+"/loop/", DownloadLimits{File: time.Second, MaxBytes: 1 << 20, AllowPrivate: true}).Open(ctx, "0", Validators{}); err == nil ||
		!strings.Contains(err.Error(), "redirects") {
		t.Errorf("endless redirects: %v", err)
	}
	small := NewStatsSource(srv.URL+"/stats/", DownloadLimits{File: time.Second, MaxBytes: 100, AllowPrivate: true})
	f, _, err = small.Open(ctx, "host.gz", Validators{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadAll(f); err == nil || !strings.Contains(err.Error(), "download limit") {
		t.Errorf("over the size limit: %v", err)
	}
}

// A download fails with the bound that ended it, named in the error: no
// byte for the stall time, or the whole file taking longer than the file
// time while bytes still trickle in. The connection is dropped.
func TestStatsSourceTimeout(t *testing.T) {
	tests := []struct {
		name    string
		limits  DownloadLimits
		trickle bool // whether the server goes on sending a byte now and then
		cause   string
	}{
		{"stalled", DownloadLimits{Stall: 300 * time.Millisecond, File: time.Hour}, false, "no data for 300ms"},
		{"too slow", DownloadLimits{Stall: time.Hour, File: 500 * time.Millisecond}, true, "took longer than 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release, dropped := make(chan struct{}), make(chan struct{})
			clientGone := sync.OnceFunc(func() { close(dropped) })
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte("slow start"))
				w.(http.Flusher).Flush()
				tick := time.NewTicker(20 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-release:
						return
					case <-r.Context().Done():
						clientGone()
						return
					case <-tick.C:
						if tt.trickle {
							w.Write([]byte("x"))
							w.(http.Flusher).Flush()
						}
					}
				}
			}))
			defer srv.Close()
			defer close(release)
			// A backstop, so that a bound that never fires fails the test
			// instead of hanging it.
			ctx, cancel := context.WithTimeoutCause(context.Background(), 30*time.Second,
				errors.New("the test's backstop: the download's own bound did not fire"))
			defer cancel()
			lim := tt.limits
			lim.MaxBytes, lim.AllowPrivate = 1<<20, true
			// The bound may fire while waiting for the reply or while
			// reading the body; the error is the same.
			f, _, err := NewStatsSource(srv.URL+"/", lim).Open(ctx, "host.gz", Validators{})
			if err == nil {
				_, err = io.ReadAll(f)
				f.Close()
			}
			if want := "get " + srv.URL + "/host.gz: " + tt.cause; err == nil || err.Error() != want {
				t.Fatalf("error %v, want %q", err, want)
			}
			select {
			case <-dropped:
			case <-ctx.Done():
				t.Error("the server is still sending: the download was not abandoned")
			}
		})
	}
}

func TestStatsSourceRefusesOtherSchemes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	}))
	defer srv.Close()
	lim := DownloadLimits{AllowPrivate: true}
	if _, _, err := NewStatsSource(srv.URL+"/", lim).Open(context.Background(), "host.gz", Validators{}); err == nil ||
		!strings.Contains(err.Error(), "not an http or https URL") {
		t.Errorf("redirect to file://: %v", err)
	}
	if _, _, err := NewStatsSource("ftp://127.0.0.1/stats/", lim).Open(context.Background(), "host.gz", Validators{}); err == nil ||
		!strings.Contains(err.Error(), "not an http or https URL") {
		t.Errorf("ftp:// stats URL: %v", err)
	}
}

// The check is on the address dialled: loopback is refused by number and
// by name, at the first request and after a redirect.
func TestStatsSourceRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("secret"))
	}))
	defer srv.Close()
	named := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, base := range []string{srv.URL + "/", named + "/", "http://[::1]:1/", "http://169.254.169.254/"} {
		_, _, err := NewStatsSource(base, DownloadLimits{}).Open(context.Background(), "host.gz", Validators{})
		if err == nil || !strings.Contains(err.Error(), "refusing to download") {
			t.Errorf("%s: %v, want a refusal", base, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the loopback server answered %d requests", hits.Load())
	}
	for _, ip := range []string{"10.1.2.3", "172.16.0.1", "192.168.1.1", "fd00::1", "fe80::1", "0.0.0.0", "224.0.0.1", "::ffff:127.0.0.1"} {
		if refusePrivate("tcp", net.JoinHostPort(ip, "80"), nil) == nil {
			t.Errorf("%s is not refused", ip)
		}
	}
	for _, ip := range []string{"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"} {
		if err := refusePrivate("tcp", net.JoinHostPort(ip, "443"), nil); err != nil {
			t.Errorf("%s is refused: %v", ip, err)
		}
	}
}

func TestFileSource(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "export.gz")
	os.WriteFile(host, []byte("data"), 0o644)
	src := FileSource{HostFile: host}
	ctx := context.Background()
	if _, _, err := src.Open(ctx, "tables.xml", Validators{}); !errors.Is(err, ErrExportMissing) {
		t.Errorf("no tables.xml beside the file: %v", err)
	}
	f, v, err := src.Open(ctx, "host.gz", Validators{})
	if err != nil || v.LastModified == "" {
		t.Fatalf("host file: %v %+v", err, v)
	}
	f.Close()
	if _, _, err := src.Open(ctx, "host_0.gz", Validators{}); !errors.Is(err, ErrExportMissing) {
		t.Errorf("numbered file: %v", err)
	}
}
