package every_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/every"
)

// Loop calls at the start when asked, then on every tick, and stops with
// its context.
func TestLoop(t *testing.T) {
	t.Parallel()
	for _, now := range []bool{true, false} {
		ctx, cancel := context.WithCancel(t.Context())
		var calls atomic.Int64
		first := make(chan int64, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			every.Loop(ctx, 30*time.Millisecond, now, func(context.Context, time.Time) {
				if calls.Add(1) == 1 {
					first <- time.Now().UnixMilli()
				}
			})
		}()
		began := time.Now().UnixMilli()
		at := <-first
		if early := at-began < 20; early != now {
			t.Errorf("now=%v: the first call came %d ms after the start", now, at-began)
		}
		time.Sleep(100 * time.Millisecond)
		cancel()
		<-done
		n := calls.Load()
		if n < 2 {
			t.Errorf("now=%v: %d calls in 100 ms of a 30 ms period", now, n)
		}
		time.Sleep(60 * time.Millisecond)
		if calls.Load() != n {
			t.Errorf("now=%v: calls went on after the context ended", now)
		}
	}
}

// time.NewTicker appears once in Cobble's production Go code, commands
// included: in Loop. Other periodic work is Loop's or a River job's.
func TestOneTicker(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, pos := range tickers(t, path) {
			rel, _ := filepath.Rel(root, path)
			found = append(found, rel+":"+pos)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], filepath.Join("internal", "every", "every.go")+":") {
		t.Errorf("time.NewTicker in production code at %v, want only in internal/every/every.go", found)
	}
}

// tickers returns the lines of a file's calls to time.NewTicker.
func tickers(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var at []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewTicker" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" {
				at = append(at, strings.TrimPrefix(fset.Position(sel.Pos()).String(), path+":"))
			}
		}
		return true
	})
	return at
}
