package accounting

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBind(t *testing.T) {
	user := ref{"(SELECT u FROM t WHERE h = $1)", []any{"hash"}}
	host := ref{"(SELECT h FROM x WHERE h = $1 AND o = $2)", []any{"hash", "token"}}
	for range 2 { // the second call comes from the cache
		sql, args := bind("a = {user} AND b <> {host} AND c = {user}", user, host)
		want := "a = (SELECT u FROM t WHERE h = $1) AND b <> (SELECT h FROM x WHERE h = $2 AND o = $3) AND " +
			"c = (SELECT u FROM t WHERE h = $4)"
		if sql != want {
			t.Errorf("sql = %q\nwant  %q", sql, want)
		}
		if diff := cmp.Diff([]any{"hash", "hash", "token", "hash"}, args); diff != "" {
			t.Errorf("args (-want +got):\n%s", diff)
		}
	}
	// Other arguments for the same SQL reuse the rendering with the new values.
	_, args := bind("a = {user} AND b <> {host} AND c = {user}", ref{user.sql, []any{"h2"}}, ref{host.sql, []any{"h2", "t2"}})
	if diff := cmp.Diff([]any{"h2", "h2", "t2", "h2"}, args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}
