package boinc

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseProjectList(t *testing.T) {
	data, err := os.ReadFile("testdata/all_projects_list.xml")
	if err != nil {
		t.Fatal(err)
	}
	list, err := ParseProjectList(data, 100)
	if err != nil || len(list) != 8 {
		t.Fatalf("%d entries, %v", len(list), err)
	}
	e := list[0]
	if e.Name != "Einstein@Home" || e.URL != "https://einsteinathome.org/" || e.SpecificArea != "Astrophysics" ||
		len(e.Platforms) != 4 || e.Keywords != "14 21 47" || !strings.HasPrefix(e.Description, "Search for spinning") {
		t.Errorf("first entry %+v", e)
	}
	if got := list[7].Description; got != "Latin-1 text: naïve" {
		t.Errorf("ISO-8859-1 text read as %q", got)
	}
	// A file cut short returns what it read, and says where it stopped.
	cut := data[:strings.Index(string(data), "<name>No URL Project")]
	list, err = ParseProjectList(cut, 100)
	if err == nil || len(list) != 2 || !strings.Contains(err.Error(), "line") {
		t.Errorf("truncated file: %d entries, %v", len(list), err)
	}
	if _, err := ParseProjectList(data, 3); err == nil {
		t.Error("more entries than allowed: no error")
	}
	if _, err := ParseProjectList([]byte("<html><body>not it</body></html>"), 10); !errors.Is(err, ErrNotProjectList) {
		t.Errorf("HTML page: %v", err)
	}
}

func FuzzParseProjectList(f *testing.F) {
	data, err := os.ReadFile("testdata/all_projects_list.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("<projects><project><name>\xff</name><url>x</url></project>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		list, _ := ParseProjectList(b, 50)
		if len(list) > 50 {
			t.Fatalf("%d entries, limit 50", len(list))
		}
		for _, p := range list {
			if !utf8.ValidString(p.Name) || !utf8.ValidString(p.Description) {
				t.Fatalf("invalid UTF-8 in %+v", p)
			}
		}
	})
}
