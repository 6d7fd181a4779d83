package accounting_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// queryFileTypes are the exported types a query file may declare: the
// Store, whose fields are the areas.
var queryFileTypes = map[string]bool{"Store": true}

// TestDomainWordsLiveInPureFiles holds accounting's files to one of two
// kinds: a query file imports pgx and declares no exported type, constant
// or variable; a pure file declares the domain's words and imports no
// pgx. So the domain's words are found apart from the queries, and
// plan.go's kind of code reads them without the database.
func TestDomainWordsLiveInPureFiles(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if !importsPgx(f) {
			continue
		}
		for _, typ := range exportedTypes(f) {
			if !queryFileTypes[typ] {
				t.Errorf("%s imports pgx and declares the exported type %s: move the type to a pure file", name, typ)
			}
		}
		for _, v := range exportedValues(f) {
			t.Errorf("%s imports pgx and declares the exported %s: move it to a pure file", name, v)
		}
	}
	if checked == 0 {
		t.Fatal("no files checked")
	}
}

// importsPgx reports whether f imports a package of pgx.
func importsPgx(f *ast.File) bool {
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if strings.HasPrefix(path, "github.com/jackc/pgx") {
			return true
		}
	}
	return false
}

// exportedTypes lists the exported types declared at f's top level.
func exportedTypes(f *ast.File) []string {
	var ts []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if name := s.(*ast.TypeSpec).Name; name.IsExported() {
					ts = append(ts, name.Name)
				}
			}
		}
	}
	return ts
}

// exportedValues lists the exported constants and variables declared at
// f's top level.
func exportedValues(f *ast.File) []string {
	var vs []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && (g.Tok == token.CONST || g.Tok == token.VAR) {
			for _, s := range g.Specs {
				for _, name := range s.(*ast.ValueSpec).Names {
					if name.IsExported() {
						vs = append(vs, g.Tok.String()+" "+name.Name)
					}
				}
			}
		}
	}
	return vs
}
