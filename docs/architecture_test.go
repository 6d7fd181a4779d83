// Package docs_test checks claims of the documents in this folder against
// the code.
package docs_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is Cobble's module path, the prefix of its own imports.
const module = "github.com/cobble-am/cobble/"

// stdOnly is how ARCHITECTURE.md says a package imports nothing but the
// standard library.
const stdOnly = "the standard library only"

// arrow is one line of ARCHITECTURE.md's import graph: the packages on its
// left import, of Cobble's, only the items on its right.
type arrow struct {
	from []string
	to   []string // Cobble's packages; "internal/…" is any under internal/
	std  bool     // the right side says the standard library only
}

// The import graph in ARCHITECTURE.md is the code's: each package on the
// left imports, of Cobble's own packages, exactly those on the right (an
// "internal/…" standing for any of internal/), only packages below it in
// the graph, and nothing outside the standard library where it says so.
func TestImportGraphIsTheCode(t *testing.T) {
	t.Parallel()
	for _, p := range importGraphProblems(t, graph(t, readArchitecture(t))) {
		t.Error(p)
	}
}

// The check finds a wrong graph: one that leaves out an import, names one
// that is not there, or lets an arrow point up.
func TestImportGraphCheckFailsOnAWrongGraph(t *testing.T) {
	t.Parallel()
	doc := readArchitecture(t)
	for name, edit := range map[string]func(string) string{
		"an import left out": func(s string) string {
			return strings.Replace(s, "accounting/reconcile  → accounting, boinc", "accounting/reconcile  → accounting", 1)
		},
		"an import not there": func(s string) string {
			return strings.Replace(s, "accounting/reconcile  → accounting, boinc", "accounting/reconcile  → accounting, boinc, views", 1)
		},
		"an arrow up": func(s string) string {
			return strings.Replace(s, "internal/every        → "+stdOnly, "internal/every        → accounting", 1)
		},
	} {
		edited := edit(doc)
		if edited == doc {
			t.Fatalf("%s: the edit did not apply; ARCHITECTURE.md's graph changed", name)
		}
		if len(importGraphProblems(t, graph(t, edited))) == 0 {
			t.Errorf("%s: no problem found", name)
		}
	}
}

func readArchitecture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// graph reads the import graph: the code block after "Imports go one way".
func graph(t *testing.T, doc string) []arrow {
	t.Helper()
	_, after, ok := strings.Cut(doc, "Imports go one way")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "Imports go one way"`)
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	var out []arrow
	for line := range strings.Lines(block) {
		left, right, ok := strings.Cut(line, "→")
		if !ok {
			t.Fatalf("import graph line without an arrow: %q", line)
		}
		a := arrow{}
		for f := range strings.SplitSeq(left, ",") {
			a.from = append(a.from, strings.TrimSpace(f))
		}
		right, _, _ = strings.Cut(right, ":") // a colon starts a remark
		for item := range strings.SplitSeq(right, ",") {
			item, _, _ = strings.Cut(item, "(") // so does a parenthesis
			item = strings.TrimSpace(item)
			switch {
			case item == stdOnly:
				a.std = true
			case ownPackage(item) || item == "internal/…":
				a.to = append(a.to, item)
			}
			// Anything else names a library outside Cobble.
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		t.Fatal("ARCHITECTURE.md's import graph is empty")
	}
	return out
}

// ownPackage reports whether p is a directory of Cobble's with Go files.
func ownPackage(p string) bool {
	m, _ := filepath.Glob(filepath.Join("..", p, "*.go"))
	return len(m) > 0
}

// importGraphProblems compares the arrows with the packages' imports (their
// non-test files, as go/build reads them).
func importGraphProblems(t *testing.T, arrows []arrow) []string {
	t.Helper()
	var out []string
	row := map[string]int{} // package → its line in the graph
	for i, a := range arrows {
		for _, f := range a.from {
			row[f] = i
		}
	}
	for i, a := range arrows {
		for _, from := range a.from {
			pkg, err := build.ImportDir(filepath.Join("..", from), 0)
			if err != nil {
				out = append(out, from+": "+err.Error())
				continue
			}
			var own []string
			for _, imp := range pkg.Imports {
				if rest, ok := strings.CutPrefix(imp, module); ok {
					own = append(own, rest)
				} else if a.std && strings.Contains(strings.Split(imp, "/")[0], ".") {
					out = append(out, from+" imports "+imp+", but the graph says "+stdOnly)
				}
			}
			for _, imp := range own {
				listed := slices.Contains(a.to, imp) ||
					(strings.HasPrefix(imp, "internal/") && slices.Contains(a.to, "internal/…"))
				if !listed {
					out = append(out, from+" imports "+imp+", which the graph does not show")
				}
				if r, ok := row[imp]; ok && r <= i {
					out = append(out, from+" imports "+imp+", which the graph shows above it or beside it")
				}
			}
			for _, to := range a.to {
				if to != "internal/…" && !slices.Contains(own, to) {
					out = append(out, "the graph shows "+from+" → "+to+", which it does not import")
				}
				if r, ok := row[to]; ok && r <= i {
					out = append(out, "the graph's "+from+" → "+to+" points up")
				}
			}
		}
	}
	return out
}
