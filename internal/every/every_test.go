package every_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/every"
)

// Loop calls at the start when asked, then on every tick, and stops with
// its context. Nothing here depends on how fast the machine is: waits end
// with the test's context, and the one window in which nothing may happen
// only gets emptier on a slower machine.
func TestLoop(t *testing.T) {
	t.Parallel()
	// With a period of an hour, the only call a test sees is the one at
	// the start: there is one with now, none without.
	for _, now := range []bool{true, false} {
		calls := make(chan time.Time, 10)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			every.Loop(ctx, time.Hour, now, func(_ context.Context, at time.Time) { calls <- at })
		}()
		if now {
			select {
			case <-calls:
			case <-t.Context().Done():
				t.Fatal("now=true: no call at the start")
			}
		}
		cancel()
		<-done
		if n := len(calls); n != 0 {
			t.Errorf("now=%v: %d calls besides the one at the start, with a period of an hour", now, n)
		}
	}

	// With a short period, calls come tick after tick until the context
	// ends, and none after Loop returned.
	var n atomic.Int64
	three := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		every.Loop(ctx, time.Millisecond, false, func(context.Context, time.Time) {
			if n.Add(1) == 3 {
				close(three)
			}
		})
	}()
	select {
	case <-three:
	case <-t.Context().Done():
		t.Fatalf("%d calls of a 1 ms period before the test's deadline", n.Load())
	}
	cancel()
	<-done
	after := n.Load()
	runtime.Gosched()
	if n.Load() != after {
		t.Error("calls went on after Loop returned")
	}
}

// Loop calls nothing when its context has ended already, even with now.
func TestLoopEnded(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	every.Loop(ctx, time.Millisecond, true, func(context.Context, time.Time) { t.Error("called after the end") })
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
