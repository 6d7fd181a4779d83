package accounting_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The concepts that one place spells: estimated credit (CPU plus GPU) and
// the list of the six counters' columns. usage.go is that place.
var (
	// creditSpelling is CPU EC plus GPU EC written out: in SQL
	// (cpu_ec_micro + gpu_ec_micro, with any prefix) or in Go (x.CPUEC +
	// x.GPUEC).
	creditSpelling = regexp.MustCompile(`cpu_ec_micro\s*\+\s*[\w.]*gpu_ec_micro|CPUEC\s*\+\s*[\w.]*GPUEC`)
	// counterList is a hand-written list of counters' columns: one naming
	// CPU EC and then, after a comma, CPU time, in SQL or as a Go list of
	// quoted names (cpu_ec_micro, cpu_time_micro; x = y, cpu_time_micro =
	// ...; @cpu_ec_micro::bigint[], @cpu_time_micro; "cpu_ec_micro",
	// "cpu_time_micro"). The hosts' budget (budget_*) is not the counters.
	counterList = regexp.MustCompile("[\\w.@]*cpu_ec_micro[^,\\n]*,\\s*[\"`]?[\\w.@]*cpu_time_micro")
)

// spellingOwner is the one file allowed to spell them.
const spellingOwner = "accounting/usage.go"

// TestCreditIsSpelledOnce fails when a production Go file of Cobble adds
// CPU and GPU estimated credit itself instead of through CreditSQL or a
// Credit method.
func TestCreditIsSpelledOnce(t *testing.T) {
	for _, hit := range spellings(t, creditSpelling) {
		t.Errorf("%s spells estimated credit by hand; use CreditSQL or Credit", hit)
	}
}

// TestCounterColumnsAreListedOnce fails when a production Go file lists
// the six counters' columns by hand instead of building the list from
// UsageFields.
func TestCounterColumnsAreListedOnce(t *testing.T) {
	for _, hit := range spellings(t, counterList) {
		if !strings.Contains(hit, "budget_") {
			t.Errorf("%s lists the counters by hand; build the list from UsageFields", hit)
		}
	}
}

// spellings returns "file: text" for each match of re in Cobble's
// production Go files, but for spellingOwner.
func spellings(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	var hits []string
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
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		if rel == spellingOwner {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, m := range re.FindAll(src, -1) {
			hits = append(hits, rel+": "+strings.Join(strings.Fields(string(m)), " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files read: the walk looks in the wrong place", files)
	}
	return hits
}
