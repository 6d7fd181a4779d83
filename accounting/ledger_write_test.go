package accounting_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ledgerWriter is the one file whose statements write the ledger's rows
// and the rollups' marks of days.
const ledgerWriter = "accounting/ledger_write.go"

// The statements that write ledger rows, mark days or record events,
// written out: an INSERT, UPDATE or COPY of the ledger (not of its sibling
// tables), a COPY through pgx, an INSERT into ledger_dirty_days or into
// accounting_events. Deleting rows is no write here: a trigger marks their
// days.
var (
	ledgerWrite = regexp.MustCompile(`(?i)\b(?:INSERT\s+INTO|UPDATE|COPY)\s+ledger(?:\s|\(|$)|Identifier\{"ledger"\}`)
	dirtyWrite  = regexp.MustCompile(`(?i)INSERT\s+INTO\s+ledger_dirty_days`)
	eventWrite  = regexp.MustCompile(`(?i)INSERT\s+INTO\s+accounting_events|Identifier\{"accounting_events"\}`)
)

// TestLedgerHasOneWriter fails when a production Go file of Cobble writes
// ledger rows, marks days or records events itself instead of through the
// ledger's writer (LedgerRows, QueueDirtyDays, LedgerFrom, HostEvents),
// which marks every day it changes for the rollups.
func TestLedgerHasOneWriter(t *testing.T) {
	t.Parallel()
	found := map[string]int{}
	writes := map[string]*regexp.Regexp{"ledger": ledgerWrite, "ledger_dirty_days": dirtyWrite, "accounting_events": eventWrite}
	walkProduction(t, func(rel string, src []byte) {
		for name, re := range writes {
			n := len(re.FindAllIndex(src, -1))
			if rel == ledgerWriter {
				found[name] += n
			} else if n > 0 {
				t.Errorf("%s writes %s itself (%d statements); use the ledger's writer in %s", rel, name, n, ledgerWriter)
			}
		}
	})
	for name := range writes {
		if found[name] != 1 {
			t.Errorf("%s has %d statements writing %s, want exactly one", ledgerWriter, found[name], name)
		}
	}
}

// walkProduction calls visit with the path (from the module's root) and the
// text of each of Cobble's production Go files.
func walkProduction(t *testing.T, visit func(rel string, src []byte)) {
	t.Helper()
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		visit(filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator))), src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files read: the walk looks in the wrong place", files)
	}
}
