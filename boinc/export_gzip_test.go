package boinc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

func TestGzipHostScannerTruncated(t *testing.T) {
	hosts := testHosts(400)
	want := wantHosts(hosts)
	gz := gzipped(t, genExport(t, hosts, exporttest.Options{}))
	for _, cut := range []int{12, 100, len(gz) / 3, len(gz) / 2, len(gz) - 9, len(gz) - 8, len(gz) - 4, len(gz) - 1} {
		sc, err := NewGzipHostScanner(bytes.NewReader(gz[:cut]))
		if err != nil {
			t.Fatalf("cut at %d of %d: %v", cut, len(gz), err)
		}
		got, err := scanAll(sc)
		var e *ExportError
		if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &e) || e.Err == nil {
			t.Fatalf("cut at %d of %d: %d hosts, error %v; want io.ErrUnexpectedEOF in an *ExportError", cut, len(gz), len(got), err)
		}
		if !strings.Contains(err.Error(), "reading host export: ") || e.Records != int64(len(got)) {
			t.Errorf("cut at %d: error %q does not say where, after %d records", cut, err, len(got))
		}
		if diff := cmp.Diff(want[:len(got)], got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("cut at %d: hosts before the error differ (-want +got):\n%s", cut, diff)
		}
	}
}

func TestGzipHostScannerWithoutReadAhead(t *testing.T) {
	gz := gzipped(t, genExport(t, testHosts(100), exporttest.Options{}))
	zr, err := gzip.NewReader(bytes.NewReader(gz[:len(gz)/2]))
	if err != nil {
		t.Fatal(err)
	}
	got, err := scanAll(NewHostScanner(zr))
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) == 0 {
		t.Errorf("%d hosts, %v; want some, then io.ErrUnexpectedEOF", len(got), err)
	}
}

func TestGzipHostScannerCorrupt(t *testing.T) {
	gz := gzipped(t, genExport(t, testHosts(400), exporttest.Options{}))
	for _, at := range []int{len(gz) / 2, len(gz) - 6} {
		bad := bytes.Clone(gz)
		bad[at] ^= 0x55
		sc, err := NewGzipHostScanner(bytes.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := scanAll(sc); err == nil {
			t.Errorf("byte %d changed: %d hosts and no error", at, len(got))
		}
	}
}

func TestNewGzipHostScannerErrors(t *testing.T) {
	for _, tt := range []struct {
		input string
		cause error
	}{
		{"", io.ErrUnexpectedEOF},
		{"\x1f\x8b\x08", io.ErrUnexpectedEOF},
		{"<hosts></hosts>", gzip.ErrHeader},
	} {
		sc, err := NewGzipHostScanner(strings.NewReader(tt.input))
		if sc != nil || !errors.Is(err, ErrBadExport) || !errors.Is(err, tt.cause) {
			t.Errorf("%q: %v, %v; want ErrBadExport and %v", tt.input, sc, err, tt.cause)
		}
	}
}

func TestHostScannerReadError(t *testing.T) {
	data := genExport(t, testHosts(100), exporttest.Options{})
	boom := errors.New("connection reset")
	r := io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(boom))
	got, err := scanAll(NewHostScanner(r))
	var e *ExportError
	if !errors.Is(err, boom) || errors.Is(err, ErrBadExport) || !errors.As(err, &e) || len(got) == 0 {
		t.Fatalf("%d hosts, %v; want some, then the read error", len(got), err)
	}
	if e.Offset != int64(len(data)/2) || e.Records != int64(len(got)) {
		t.Errorf("error at %+v, want offset %d after %d records", e, len(data)/2, len(got))
	}
}

// waitGoroutines waits until at most n goroutines run, collecting
// garbage meanwhile, and reports whether that happened within a while.
func waitGoroutines(n int) bool {
	for range 200 {
		if runtime.NumGoroutine() <= n {
			return true
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestGzipHostScannerClose(t *testing.T) {
	gz := gzipped(t, genExport(t, testHosts(3000), exporttest.Options{}))
	base := runtime.NumGoroutine()
	sc, err := NewGzipHostScanner(bytes.NewReader(gz))
	if err != nil || !sc.Next() {
		t.Fatalf("%v, %v", err, sc.Err())
	}
	if sc.Close() != nil || sc.Next() || !errors.Is(sc.Err(), errScannerClosed) {
		t.Errorf("after Close: Next true or Err %v", sc.Err())
	}
	if !waitGoroutines(base) {
		t.Errorf("%d goroutines after Close, want %d", runtime.NumGoroutine(), base)
	}
	sc = NewHostScanner(strings.NewReader("<hosts/>"))
	if sc.Next() || sc.Close() != nil || sc.Err() != nil {
		t.Errorf("Close after a clean end: Err %v", sc.Err())
	}
}

func TestGzipHostScannerAbandoned(t *testing.T) {
	gz := gzipped(t, genExport(t, testHosts(3000), exporttest.Options{}))
	base := runtime.NumGoroutine()
	func() {
		sc, err := NewGzipHostScanner(bytes.NewReader(gz))
		if err != nil || !sc.Next() {
			t.Fatalf("%v, %v", err, sc.Err())
		}
	}()
	if !waitGoroutines(base) {
		t.Errorf("%d goroutines after the scanner became garbage, want %d", runtime.NumGoroutine(), base)
	}
}
