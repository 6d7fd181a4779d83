package handlers

import "testing"

// A path is logged as it is unless it may hold a secret: then by its
// route, or, when no route matched, without its long segments.
func TestLogPath(t *testing.T) {
	t.Parallel()
	const token = "E1HyHTuy6euDU-vTPVdLsRrRDuUZehN7ZVkrAuw6BZw"
	for _, c := range []struct{ pattern, path, want string }{
		{"/login", "/login", "/login"},
		{"/rpc.php", "/rpc.php", "/rpc.php"},
		{"/computers/{id}", "/computers/42", "/computers/42"},
		{"/admin/projects/{id}/edit", "/admin/projects/7/edit", "/admin/projects/7/edit"},
		{"/password/reset/{token}", "/password/reset/" + token, "/password/reset/{token}"},
		{"/signup/finish/{token}", "/signup/finish/" + token, "/signup/finish/{token}"},
		{"/email/confirm/{token}", "/email/confirm/" + token, "/email/confirm/{token}"},
		{"/unsubscribe/{token}", "/unsubscribe/" + token, "/unsubscribe/{token}"},
		{"/notices/{file}", "/notices/" + token + ".rss", "/notices/{file}"},
		{"/links/{id}/{key}", "/links/1/" + token, "/links/{id}/{key}"}, // a parameter other than id
		{"/static/*", "/static/app." + token + ".css", "/static/…"},
		{"/static/*", "/static/app.css", "/static/app.css"},
		{"/admin/*", "/admin/reconciliation", "/admin/reconciliation"}, // refused before the subrouter's route
		{"", "/favicon.ico", "/favicon.ico"},
		{"", "/", "/"},
		{"", "/password/reset/" + token + "/more", "/password/reset/…/more"},
		{"", "/password/reset/" + token + ".", "/password/reset/…"},
		{"", "/notices/" + token + ".rss/x", "/notices/…/x"},
		{"", "/password/", "/password/"},
		{"", "/" + token, "/…"},
		{"", "/" + token + "/x", "/…/x"},
	} {
		if got := LogPath(c.pattern, c.path); got != c.want {
			t.Errorf("LogPath(%q, %q) = %q, want %q", c.pattern, c.path, got, c.want)
		}
	}
}
