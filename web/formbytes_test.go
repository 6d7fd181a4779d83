package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// Bytes that are not text, or control characters, in any form field are
// the field's validation error (422), never a database failure.
func TestFormsRejectBadBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("vol1@x.example", "secret-pass")
	tests := []struct {
		name, path, body, want string
	}{
		{"NUL in log-in email", "/login", "email=vol1%00%40x.example&password=secret-pass", "printable"},
		{"invalid UTF-8 in log-in email", "/login", "email=%FF&password=secret-pass", "not valid text"},
		{"invalid UTF-8 in password", "/login", "email=vol1%40x.example&password=%C3%28", "not valid text"},
		{"invalid UTF-8 in sign-up name", "/signup", "email=new%40x.example&password=long-enough&name=%FF%FE", "not valid text"},
		{"control character in sign-up email", "/signup", "email=new%1B%40x.example&password=long-enough", "printable"},
		{"tab in sign-up password", "/signup", "email=new%40x.example&password=long%09enough", "printable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, page := e.post(tt.path, "application/x-www-form-urlencoded", []byte(tt.body))
			if status != http.StatusUnprocessableEntity || !strings.Contains(page, tt.want) {
				t.Errorf("status %d, want 422 with %q\n%s", status, tt.want, page)
			}
		})
	}
}
