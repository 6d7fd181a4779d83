package boinc

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// streamExport returns a pipe from which a goroutine's gzip-compressed
// export of n synthetic hosts can be read, and the count of uncompressed
// bytes written to it. Closing the pipe stops the goroutine.
func streamExport(n int) (*io.PipeReader, *countingWriter) {
	pr, pw := io.Pipe()
	zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
	cw := &countingWriter{w: zw}
	go func() {
		err := exporttest.WriteHostExport(cw, exporttest.SynthHosts(n, 3), exporttest.Options{})
		pw.CloseWithError(errors.Join(err, zw.Close()))
	}()
	return pr, cw
}

// memTestHosts returns the number of hosts TestScanMemoryIsBounded
// streams.
func memTestHosts(t *testing.T) int {
	n := 200_000
	if raceEnabled {
		n = 20_000 // the race detector makes gzip ten times slower
	}
	if v := os.Getenv("COBBLE_SCAN_RSS_HOSTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("COBBLE_SCAN_RSS_HOSTS=%q: want a positive number", v)
		}
	}
	return n
}

// TestScanMemoryIsBounded streams a gzip-compressed export of 200,000
// hosts (240 MB uncompressed; 20,000 under the race detector), or
// COBBLE_SCAN_RSS_HOSTS, from a generator through a pipe into a scanner,
// and checks that the heap stays small. Run the compiled test under
// /usr/bin/time -v to see the maximum RSS.
func TestScanMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 240 MB")
	}
	n := memTestHosts(t)
	pr, uncompressed := streamExport(n)
	defer pr.Close()
	sc, err := NewGzipHostScanner(pr)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var heap, sys uint64
	check := func() {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap, sys = max(heap, ms.HeapInuse), max(sys, ms.Sys)
	}
	var credit float64
	for sc.Next() {
		credit += sc.Host().TotalCredit
		if sc.Count()%(int64(n)/5+1) == 0 {
			check()
		}
	}
	check()
	if sc.Err() != nil || sc.Count() != int64(n) || credit == 0 {
		t.Fatalf("%d hosts, %v; want %d", sc.Count(), sc.Err(), n)
	}
	const limit = 32 << 20
	if heap > limit || sys > 2*limit {
		t.Errorf("HeapInuse up to %d MB, Sys up to %d MB; want under %d and %d MB", heap>>20, sys>>20, limit>>20, 2*limit>>20)
	}
	t.Logf("%d hosts, %d MB uncompressed: HeapInuse up to %.1f MB, Sys up to %.1f MB",
		n, uncompressed.n>>20, float64(heap)/(1<<20), float64(sys)/(1<<20))
}
