package boinc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	src := NewStatsSource(srv.URL+"/stats", 5*time.Second, 1<<20)

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
	if f, _, err := NewStatsSource(srv.URL+"/moved/", time.Second, 1<<20).Open(ctx, "host.gz", Validators{}); err != nil {
		t.Errorf("one redirect: %v", err)
	} else {
		f.Close()
	}
	if _, _, err := NewStatsSource(srv.URL+"/loop/", time.Second, 1<<20).Open(ctx, "0", Validators{}); err == nil ||
		!strings.Contains(err.Error(), "redirects") {
		t.Errorf("endless redirects: %v", err)
	}
	small := NewStatsSource(srv.URL+"/stats/", time.Second, 100)
	f, _, err = small.Open(ctx, "host.gz", Validators{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadAll(f); err == nil || !strings.Contains(err.Error(), "download limit") {
		t.Errorf("over the size limit: %v", err)
	}
}

func TestStatsSourceTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("slow start"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	f, _, err := NewStatsSource(srv.URL+"/", 300*time.Millisecond, 1<<20).Open(context.Background(), "host.gz", Validators{})
	if err == nil {
		_, err = io.ReadAll(f)
		f.Close()
	}
	if err == nil {
		t.Error("a download that stalls did not time out")
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
