package accounting_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxMethods is the most methods one type of accounting may have: past it,
// the type is a room too big to find one's way in; split it by area.
const maxMethods = 40

// TestNoTypeHasTooManyMethods counts, with go/ast, the methods declared on
// each type of accounting and its sub-packages (tests aside).
func TestNoTypeHasTooManyMethods(t *testing.T) {
	counts := methodCounts(t, ".")
	if len(counts) == 0 {
		t.Fatal("no methods found: the count looks in the wrong place")
	}
	for _, typ := range slices.Sorted(maps.Keys(counts)) {
		n := counts[typ]
		t.Logf("%s: %d", typ, n)
		if n > maxMethods {
			t.Errorf("%s has %d methods, more than %d: split it by area", typ, n, maxMethods)
		}
	}
}

// methodCounts returns the number of methods declared on each type under
// root, keyed "accounting/dir.Type", in non-test Go files.
func methodCounts(t *testing.T, root string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				counts[filepath.Join("accounting", filepath.Dir(path))+"."+receiverType(fn.Recv.List[0].Type)]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// receiverType names a receiver's type: T for T, *T, T[K] and *T[K].
func receiverType(e ast.Expr) string {
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
