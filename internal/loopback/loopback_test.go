package loopback

import (
	"errors"
	"go/parser"
	"go/token"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// A name outside the machine is not found, and is recorded; localhost
// resolves; a name under .invalid is not found, and not recorded.
func TestLookups(t *testing.T) {
	t.Setenv(LogEnv, "") // the lookups below are this test's own
	if addrs, err := net.DefaultResolver.LookupHost(t.Context(), "localhost"); err != nil || len(addrs) == 0 {
		t.Errorf("localhost: %v, %v", addrs, err)
	}
	for _, name := range []string{"proj.invalid", "proj.example.org"} {
		_, err := net.DefaultResolver.LookupHost(t.Context(), name)
		var dnsErr *net.DNSError
		if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
			t.Errorf("%s: %v, want not found", name, err)
		}
	}
	mu.Lock()
	got := looked
	looked = nil // the lookup above was this test's own
	mu.Unlock()
	if !slices.Equal(got, []string{"proj.example.org"}) {
		t.Errorf("recorded %q, want [proj.example.org]", got)
	}
}

// Every package with tests runs them through Main (or Guard, for a test
// binary that acts as a command in a child process, before Main).
func TestEveryPackageIsGuarded(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]bool{} // directories with tests → a TestMain calls Main
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.Dir(path)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		guarded := false
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/cobble-am/cobble/internal/loopback" {
				b, _ := os.ReadFile(path)
				guarded = strings.Contains(string(b), "func TestMain(") && (strings.Contains(string(b), "loopback.Main(m)") || strings.Contains(string(b), "loopback.Run(m)"))
			}
		}
		if filepath.Base(dir) == "loopback" {
			guarded = true
		}
		tested[dir] = tested[dir] || guarded
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, guarded := range tested {
		if !guarded {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("%s: no TestMain runs the tests through loopback.Main or Run", rel)
		}
	}
	if len(tested) < 20 {
		t.Errorf("found tests in %d directories, want every one of the module's", len(tested))
	}
}
