package handlers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandlersTakeAreasNotTheStore holds the handlers to the narrow
// interfaces of stores.go: only New, which wires them, names
// *accounting.Store; no field, parameter or variable of a handler does.
func TestHandlersTakeAreasNotTheStore(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "New" {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Store" {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "accounting" {
						t.Errorf("%s names accounting.Store: take the area's interface (stores.go)", fset.Position(sel.Pos()))
					}
				}
				return true
			})
		}
	}
}
