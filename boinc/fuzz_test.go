package boinc

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func FuzzParseRequest(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.request.xml"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		wrap("<working_global_preferences><x>"),
		wrap("<opaque>\n<host_token>a&b</host_token>\n</opaque>"),
		wrap("<host_info><coprocs><coproc><type>apple_gpu</type><count>1</count></coproc></coprocs></host_info>"),
		"<acct_mgr_request><project><url>&#195;&#169;&#233;",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseRequest(body)
		if err != nil {
			if r != nil || !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseRequest = %v, %v", r, err)
			}
			return
		}
		if r == nil {
			t.Fatal("nil request without error")
		}
		for _, s := range []string{r.Name, r.DomainName, r.Host.PModel, r.Host.OSName} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
		}
		for _, p := range r.Projects {
			if !utf8.ValidString(p.URL) || !utf8.ValidString(p.ProjectName) {
				t.Fatalf("invalid UTF-8 in project %+v", p)
			}
		}
	})
}
