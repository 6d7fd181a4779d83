// Package methodcount counts the methods declared on each type of a tree
// of Go files, for the tests that keep Cobble's types to rooms one can
// find one's way in (accounting's areas, handlers' rooms).
package methodcount

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// Most is the most methods one type of Cobble's may declare: past it, the
// type is a room too big to find one's way in, and is split.
const Most = 40

// Count returns the number of methods declared on each type in the non-test
// Go files under root, the package called name, keyed by package and type:
// "accounting.Store", and "accounting/reconcile.Reconciler" for one in a
// folder below root.
func Count(root, name string) (map[string]int, error) {
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
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				counts[filepath.ToSlash(filepath.Join(name, dir))+"."+receiver(fn.Recv.List[0].Type)]++
			}
		}
		return nil
	})
	return counts, err
}

// receiver names a receiver's type: T for T, *T, T[K] and *T[K].
func receiver(e ast.Expr) string {
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
