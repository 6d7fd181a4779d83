package views

import (
	"net/url"
	"strings"

	"github.com/a-h/templ"
)

// recoveryCodesFile is a data: URI of the recovery codes as a text file,
// one code a line, which the recovery codes page offers as a download
// (the codes are kept only hashed, so no later request could serve them).
func recoveryCodesFile(codes []string) templ.SafeURL {
	text := strings.Join(codes, "\r\n") + "\r\n"
	return templ.SafeURL("data:text/plain;charset=utf-8," + url.PathEscape(text))
}
