package boinc

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// FuzzHostScanner checks that the scanner never panics, rejects what it
// rejects with an *ExportError wrapping ErrBadExport, returns valid
// UTF-8, and gives the same results whatever the size of its buffer and
// of the reads that fill it.
func FuzzHostScanner(f *testing.F) {
	f.Add(genExport(f, slices.Collect(exporttest.SynthHosts(3, 1)), exporttest.Options{}))
	f.Add(genExport(f, slices.Collect(exporttest.SynthHosts(2, 2)), exporttest.Options{ISO88591Decl: true, CRLF: true}))
	f.Add([]byte(toleratedDoc))
	for _, tt := range errorCases(f) {
		f.Add([]byte(tt.input))
	}
	// Found by fuzzing: the quoted text in the error depends on how much
	// input is buffered, so sameProblem ignores it.
	f.Add([]byte("000000000"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 1 << 16
		big, bigErr := scanAll(newHostScanner(bytes.NewReader(data), max, max))
		small, smallErr := scanAll(newHostScanner(iotest.OneByteReader(bytes.NewReader(data)), 8, max))
		if diff := cmp.Diff(big, small, cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("small buffer reads differently (-big +small):\n%s", diff)
		}
		if bigErr != nil || smallErr != nil {
			if bigErr == nil || smallErr == nil {
				t.Fatalf("errors differ: %v; with a small buffer: %v", bigErr, smallErr)
			}
			var e, e2 *ExportError
			if !errors.Is(bigErr, ErrBadExport) || !errors.As(bigErr, &e) || e.Offset < 0 || e.Offset > int64(len(data)) {
				t.Fatalf("error %v: want an *ExportError within the input wrapping ErrBadExport", bigErr)
			}
			if !errors.As(smallErr, &e2) || *e != *e2 && !sameProblem(e, e2) {
				t.Fatalf("errors differ: %v; with a small buffer: %v", bigErr, smallErr)
			}
		}
		if len(big) > len(data)/len("<host><id>0</id></host>") {
			t.Fatalf("%d records from %d bytes", len(big), len(data))
		}
		for _, h := range big {
			for _, s := range []string{h.HostCPID, h.OSName, h.PModel} {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 in %q", s)
				}
			}
		}
	})
}

// sameProblem reports whether two errors report the same problem at the
// same place. The input they quote may differ, as it depends on how much
// of it was buffered.
func sameProblem(a, b *ExportError) bool {
	a1, b1 := *a, *b
	a1.Msg, _, _ = strings.Cut(a.Msg, `"`)
	b1.Msg, _, _ = strings.Cut(b.Msg, `"`)
	return a1 == b1
}
