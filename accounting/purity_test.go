package accounting_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// queryFileTypes are the exported types a query file may declare: the
// Store, whose fields are the areas.
var queryFileTypes = map[string]bool{"Store": true}

// TestDomainWordsLiveInPureFiles holds accounting's files to one of two
// kinds: a query file uses the database (usesDatabase) and declares no
// exported type, constant or variable; a pure file declares the domain's
// words and does not touch the database at all. So the domain's words are
// found apart from the queries, and plan.go's kind of code reads them
// without the database.
func TestDomainWordsLiveInPureFiles(t *testing.T) {
	checked := 0
	for name, f := range productionFiles(t) {
		checked++
		use := usesDatabase(f)
		if use == "" {
			continue
		}
		for _, typ := range exportedTypes(f) {
			if !queryFileTypes[typ] {
				t.Errorf("%s uses the database (%s) and declares the exported type %s: move the type to a pure file", name, use, typ)
			}
		}
		for _, v := range exportedValues(f) {
			t.Errorf("%s uses the database (%s) and declares the exported %s: move it to a pure file", name, use, v)
		}
	}
	if checked == 0 {
		t.Fatal("no files checked")
	}
}

// TestPureFilesOfTheArchitectureArePure checks docs/ARCHITECTURE.md's
// "pure:" lists of accounting's files: each names a file that does not
// touch the database.
func TestPureFilesOfTheArchitectureArePure(t *testing.T) {
	doc, err := os.ReadFile("../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	files := productionFiles(t)
	named := 0
	for _, list := range pureList.FindAllSubmatch(doc, -1) {
		for _, m := range fileName.FindAllSubmatch(list[1], -1) {
			name := string(m[1])
			f, ok := files[name]
			if !ok {
				continue // a file of another package (reconcile's)
			}
			named++
			if use := usesDatabase(f); use != "" {
				t.Errorf("docs/ARCHITECTURE.md lists %s as pure, but it uses the database (%s)", name, use)
			}
		}
	}
	if named < 20 {
		t.Fatalf("only %d pure files of accounting found in docs/ARCHITECTURE.md", named)
	}
}

var (
	// pureList is a "pure:" list of files in docs/ARCHITECTURE.md.
	pureList = regexp.MustCompile("pure: ((?:`[\\w.]+`(?:, )?)+)")
	fileName = regexp.MustCompile("`(\\w+\\.go)`")
	// sqlText is a string that holds a statement of SQL.
	sqlText = regexp.MustCompile(`\b(SELECT\s[\s\S]*\bFROM|INSERT INTO|DELETE FROM|UPDATE\s+\w+\s+SET|ON CONFLICT)\b`)
)

// productionFiles parses accounting's files but its tests, by name.
func productionFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	return files
}

// usesDatabase says how f touches the database, or "" when it does not:
// it imports pgx or River, reaches one of the Store core's ways to the
// database (dbFields), or holds SQL in a string.
func usesDatabase(f *ast.File) string {
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if strings.HasPrefix(path, "github.com/jackc/pgx") || strings.HasPrefix(path, "github.com/riverqueue/") {
			return "imports " + path
		}
	}
	var use string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if dbFields[n.Sel.Name] && use == "" {
				use = "uses ." + n.Sel.Name
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && sqlText.MatchString(n.Value) && use == "" {
				use = "holds SQL"
			}
		}
		return use == ""
	})
	return use
}

// dbFields are the Store core's fields and methods that reach the
// database: its pool, transactions, read replica, rewritten queries and
// job inserter.
var dbFields = map[string]bool{"pool": true, "tx": true, "replica": true, "rewrites": true, "jobs": true}

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

// TestPlanSitsBelowTheQueryFiles: plan.go, the RPC's decisions, uses no
// name declared in a query file, so that it reads, and its property tests
// run, without the database's code.
func TestPlanSitsBelowTheQueryFiles(t *testing.T) {
	files := productionFiles(t)
	declaredIn := map[string]string{} // top-level name → its file
	for name, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declaredIn[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declaredIn[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declaredIn[n.Name] = name
						}
					}
				}
			}
		}
	}
	plan, ok := files["plan.go"]
	if !ok {
		t.Fatal("no plan.go")
	}
	seen := map[string]bool{}
	ast.Inspect(plan, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || seen[id.Name] {
			return true
		}
		seen[id.Name] = true
		if file := declaredIn[id.Name]; file != "" && file != "plan.go" {
			if use := usesDatabase(files[file]); use != "" {
				t.Errorf("plan.go uses %s, declared in the query file %s (%s): move it to a pure file", id.Name, file, use)
			}
		}
		return true
	})
}
