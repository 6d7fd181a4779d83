package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// Each domain error gets its status from the table; only the server's
// own failures are 5xx and logged.
func TestErrorTable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err    error
		status int
		logged bool
	}{
		{fmt.Errorf("add project: %w", accounting.ErrConflict), http.StatusConflict, false},
		{fmt.Errorf("project: %w", accounting.ErrNotFound), http.StatusNotFound, false},
		{&accounting.ValidationError{Fields: map[string]locale.Msg{"x": locale.Text("Wrong.")}}, http.StatusUnprocessableEntity, false},
		{fmt.Errorf("ping: %w", accounting.ErrUnavailable), http.StatusServiceUnavailable, true},
		{errors.New("a bug"), http.StatusInternalServerError, true},
	} {
		var logs bytes.Buffer
		a := &base{log: slog.New(slog.NewTextHandler(&logs, nil))}
		w := httptest.NewRecorder()
		a.Handle(func(http.ResponseWriter, *http.Request) error { return c.err })(w, httptest.NewRequest("GET", "/x", nil))
		if w.Code != c.status {
			t.Errorf("%v: status %d, want %d", c.err, w.Code, c.status)
		}
		if got := strings.Contains(logs.String(), "page failed"); got != c.logged {
			t.Errorf("%v: logged %v, want %v:\n%s", c.err, got, c.logged, logs.String())
		}
	}
}
