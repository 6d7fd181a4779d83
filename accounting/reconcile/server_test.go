package reconcile_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// statsServer is a BOINC project's stats/ directory on 127.0.0.1, serving
// generated exports with ETags, and failures on demand.
type statsServer struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	files map[string][]byte // name → content
	fail  map[string]int    // name → HTTP status to answer instead
	gets  map[string]int    // name → 200 answers given
}

func newStatsServer(t *testing.T) *statsServer {
	s := &statsServer{t: t, files: map[string][]byte{}, fail: map[string]int{}, gets: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *statsServer) URL() string { return s.srv.URL + "/stats/" }

func (s *statsServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := strings.TrimPrefix(r.URL.Path, "/stats/")
	if code := s.fail[name]; code != 0 {
		http.Error(w, "broken", code)
		return
	}
	b, ok := s.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x-%d"`, len(b), crc(b))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	s.gets[name]++
	w.Write(b)
}

func crc(b []byte) (sum uint32) {
	for _, c := range b {
		sum = sum*31 + uint32(c)
	}
	return sum
}

// publish replaces the export: tables.xml with updateTime, and the hosts in
// host.gz, or split over host_0.gz, host_1.gz, ... when parts > 1.
func (s *statsServer) publish(updateTime time.Time, hosts []exporttest.Host, parts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = map[string][]byte{}
	var tables bytes.Buffer
	if err := exporttest.WriteTables(&tables, exporttest.Tables{UpdateTime: updateTime.Unix(), NHostsTotal: int64(len(hosts))}); err != nil {
		s.t.Fatal(err)
	}
	s.files["tables.xml"] = tables.Bytes()
	if parts <= 1 {
		s.files["host.gz"] = gzipExport(s.t, hosts, false)
		return
	}
	per := (len(hosts) + parts - 1) / parts
	for i := range parts {
		part := hosts[min(i*per, len(hosts)):min((i+1)*per, len(hosts))]
		s.files[fmt.Sprintf("host_%d.gz", i)] = gzipExport(s.t, part, i%2 == 1)
	}
}

func (s *statsServer) setFile(name string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[name] = b
}

func (s *statsServer) failWith(name string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[name] = code
}

func gzipExport(t *testing.T, hosts []exporttest.Host, iso bool) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := exporttest.WriteHostExport(zw, slices.Values(hosts), exporttest.Options{ISO88591Decl: iso}); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
