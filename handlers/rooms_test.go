package handlers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxMethods is the most methods one type of handlers may declare, as in
// accounting (areas_test.go): a room larger than this is split by audience.
const maxMethods = 40

// TestNoTypeHasTooManyMethods counts, with go/ast, the methods declared on
// each type of handlers (tests aside): the rooms and their plumbing.
func TestNoTypeHasTooManyMethods(t *testing.T) {
	t.Parallel()
	counts := map[string]int{}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				counts[receiverName(fn.Recv.List[0].Type)]++
			}
		}
	}
	if len(counts) == 0 {
		t.Fatal("no methods found: the count looks in the wrong place")
	}
	for _, typ := range slices.Sorted(maps.Keys(counts)) {
		n := counts[typ]
		t.Logf("%s: %d", typ, n)
		if n > maxMethods {
			t.Errorf("%s has %d methods, more than %d: split it by audience", typ, n, maxMethods)
		}
	}
}

// receiverName names a receiver's type: T for T, *T, T[K] and *T[K].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}
