package handlers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/internal/locale"
)

// domainErrors are the exported Err* variables of the domain's packages,
// by package directory and name. TestEveryDomainErrorHasAPage finds the
// declared ones in the source, so that a new one must be added here, and
// so to the error table.
var domainErrors = map[string]error{
	"accounting.ErrNotFound":         accounting.ErrNotFound,
	"accounting.ErrConflict":         accounting.ErrConflict,
	"accounting.ErrUnknownAccount":   accounting.ErrUnknownAccount,
	"accounting.ErrBadPassword":      accounting.ErrBadPassword,
	"accounting.ErrDisabled":         accounting.ErrDisabled,
	"accounting.ErrUnavailable":      accounting.ErrUnavailable,
	"accounting.ErrLinkInvalid":      accounting.ErrLinkInvalid,
	"accounting.ErrWithdrawn":        accounting.ErrWithdrawn,
	"accounting.ErrLimited":          accounting.ErrLimited,
	"accounting.ErrBadCode":          accounting.ErrBadCode,
	"accounting.ErrCodeUsed":         accounting.ErrCodeUsed,
	"accounting.ErrUnreadablePrefs":  accounting.ErrUnreadablePrefs,
	"accounting.ErrComputing":        accounting.ErrComputing,
	"accounting.ErrTeamClosed":       accounting.ErrTeamClosed,
	"accounting.ErrNotFounder":       accounting.ErrNotFounder,
	"accounting.ErrTooManyTeams":     accounting.ErrTooManyTeams,
	"accounting.ErrEmailUnconfirmed": accounting.ErrEmailUnconfirmed,
	"reconcile.ErrRunBusy":           reconcile.ErrRunBusy,
}

// Every exported Err* of accounting and its sub-packages has an entry of
// its own in the error table, with a title and a text in each language:
// none that escapes a handler becomes a bare 500.
func TestEveryDomainErrorHasAPage(t *testing.T) {
	t.Parallel()
	declared := declaredErrors(t, filepath.Join("..", "accounting"))
	for _, name := range declared {
		if _, ok := domainErrors[name]; !ok {
			t.Errorf("%s is not in domainErrors: add it, and give it a row in errorTable", name)
		}
	}
	if len(declared) < len(domainErrors) {
		t.Errorf("found %d Err* declarations, want %d: %v", len(declared), len(domainErrors), declared)
	}
	for name, err := range domainErrors {
		row := tableRow(err)
		if row < 0 {
			t.Errorf("%s has no row of its own in errorTable", name)
			continue
		}
		p := errorTable[row]
		if !locale.Default().Has(p.title.ID) || !locale.Default().Has(p.msg.ID) {
			t.Errorf("%s: title %q or text %q is not in the catalog", name, p.title.ID, p.msg.ID)
		}
		wrapped := fmt.Errorf("some operation: %w", err)
		if status, _, _ := errorWords(wrapped); status != p.status || status == 0 {
			t.Errorf("%s wrapped: status %d, want the row's %d", name, status, p.status)
		}
	}
	// An unknown account and a wrong password look the same.
	a, b := errorTable[tableRow(accounting.ErrUnknownAccount)], errorTable[tableRow(accounting.ErrBadPassword)]
	if a.status != b.status || a.title.ID != b.title.ID || a.msg.ID != b.msg.ID {
		t.Errorf("an unknown account and a wrong password get different pages: %+v, %+v", a, b)
	}
	if s, _, _ := errorWords(accounting.ErrUnreadablePrefs); s != http.StatusInternalServerError {
		t.Errorf("unreadable preferences: status %d, want 500 (logged)", s)
	}
}

// tableRow is the index of err's own row in errorTable (its err is err
// itself), or -1.
func tableRow(err error) int {
	for i, p := range errorTable {
		if p.err == err { // the row of this very error, not one it wraps
			return i
		}
	}
	return -1
}

// declaredErrors parses the Go files (tests aside) under dir and returns
// "package.ErrName" for every exported package-level variable named Err*.
func declaredErrors(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
						names = append(names, f.Name.Name+"."+n.Name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// No exported domain error is answered 500 by any surface: the page, the
// API's problem and the RPC each derive their answer from the error's row
// of errorTable. Unreadable preferences are the one deliberate exception:
// the server's fault, logged, with words of their own.
func TestNoDomainErrorIsA500(t *testing.T) {
	t.Parallel()
	for name, err := range domainErrors {
		wrapped := fmt.Errorf("some operation: %w", err)
		want500 := err == accounting.ErrUnreadablePrefs
		page, _, _ := errorWords(wrapped)
		a := &API{base: &base{log: slog.New(slog.DiscardHandler)}}
		w := httptest.NewRecorder()
		a.apiError(w, httptest.NewRequest("GET", "/api/v1/me", nil), wrapped)
		rpc, code, _ := rpcAnswer(wrapped)
		for _, s := range []struct {
			surface string
			status  int
		}{{"page", page}, {"API", w.Code}, {"RPC", rpc}} {
			if s.status == http.StatusInternalServerError && !want500 {
				t.Errorf("%s: the %s answers %d", name, s.surface, s.status)
			}
		}
		if row, ok := errorRowOf(wrapped); ok && row.rpc != 0 && code != row.rpc {
			t.Errorf("%s: the RPC answers code %d, want the row's %d", name, code, row.rpc)
		}
	}
}
