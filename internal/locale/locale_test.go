package locale

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode"

	"github.com/nicksnyder/go-i18n/v2/i18n"
)

// sameInEveryLanguage are the messages a catalog may word exactly as the
// reference does: names and abbreviations that many languages share.
// Messages with no letters outside their placeholders ("{{.Area}}:
// {{.Choice}}", ".") may match too, without being listed.
var sameInEveryLanguage = map[string]bool{
	"layout.admin": true, "signup.name": true, "computer.name_heading": true, "preset.standard": true,
	"computers.cpus_gpus": true, "computer.cpus": true, "computer.gpus": true, "rpc.claim_cpus": true,
	// BOINC keywords that are proper names: CERN, China, universities.
	"keyword.25": true, "keyword.27": true, "keyword.28": true, "keyword.42": true, "keyword.50": true,
	"keyword.51": true, "keyword.52": true, "keyword.53": true, "keyword.54": true, "keyword.55": true,
	"credit.col_gpu_vs_cpu": true, // GPU ÷ CPU: abbreviations German uses too
	// "Team" is German too.
	"teams.title": true, "teams.col_name": true,
}

// hasWords reports whether s has a letter outside its placeholders.
func hasWords(s string) bool {
	return strings.IndexFunc(placeholder.ReplaceAllString(s, ""), unicode.IsLetter) >= 0
}

// TestCatalogsAgree fails when a catalog lacks a message of the
// reference, has one the reference lacks, lacks a plural form its
// language needs, uses other placeholders than the reference, leaves a
// message in the reference's words (but for sameInEveryLanguage), or has
// plural forms without {{.Count}} in the other form.
func TestCatalogsAgree(t *testing.T) {
	c := Default()
	ref := c.Get(Reference)
	for _, l := range c.Langs()[1:] {
		for id, rm := range ref.messages {
			m, ok := l.messages[id]
			if !ok {
				t.Errorf("%s.toml lacks %q", l.Code, id)
				continue
			}
			if got, want := placeholders(m), placeholders(rm); got != want {
				t.Errorf("%s.toml %q has placeholders %s, %s.toml %s", l.Code, id, got, Reference, want)
			}
			if m.Other == rm.Other && m.One == rm.One && hasWords(rm.Other) && !sameInEveryLanguage[id] {
				t.Errorf("%s.toml %q is %s.toml's %q: translate it, or add it to sameInEveryLanguage", l.Code, id, Reference, rm.Other)
			}
			if rm.One != "" {
				// Counts that reach every plural form of every CLDR rule.
				var pairs []any // every placeholder but Count, given
				for _, name := range strings.Fields(strings.Trim(placeholders(rm), "[]")) {
					if name != "Count" {
						pairs = append(pairs, name, "x")
					}
				}
				for _, n := range []any{0, 1, 2, 3, 5, 11, 21, 22, 25, 100, 101, 102, 111, 1000000, 1.5, 0.5} {
					if s := l.T(id, append(pairs, "Count", n)...); strings.Contains(s, "⟦") {
						t.Errorf("%s.toml %q lacks the plural form for %v", l.Code, id, n)
						break
					}
				}
			}
		}
		for id := range l.messages {
			if _, ok := ref.messages[id]; !ok {
				t.Errorf("%s.toml has %q, which %s.toml lacks", l.Code, id, Reference)
			}
		}
	}
	for _, l := range c.Langs() {
		for id, rm := range ref.messages {
			if m := l.messages[id]; m != nil && rm.One != "" && !strings.Contains(m.Other, "{{.Count}}") {
				t.Errorf("%s.toml %q has plural forms but no {{.Count}} in its other form", l.Code, id)
			}
		}
	}
}

var placeholder = regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)

// placeholders lists the names a message's forms use, sorted.
func placeholders(m *i18n.Message) string {
	seen := map[string]bool{}
	for _, s := range []string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other} {
		for _, sub := range placeholder.FindAllStringSubmatch(s, -1) {
			seen[sub[1]] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return "[" + strings.Join(names, " ") + "]"
}

// dynamicIDs are the prefixes of message ids that code puts together at
// run time (a keyword's id, a warning's kind, an event's); messages under them count as
// used.
var dynamicIDs = []string{"keyword.", "warning.title.", "events."}

// usedID finds a message id in code: t(ctx, "id"), tm("id", …),
// tr(r, "id", …), x.T("id", …), x.Pattern("id", …) and locale.M("id", …).
var usedID = regexp.MustCompile(`(?:\bt[nf]?\(ctx,\s*|\btr\(r,\s*|\btm\(\s*|\.T\(\s*|\.Pattern\(\s*|\bM\(\s*)"([a-z0-9_]+(?:\.[a-z0-9_]+)+)"`)

// TestEveryUsedMessageExists reads Cobble's source for the message ids it
// uses: each must be in the reference catalog, and each message there
// must be used.
func TestEveryUsedMessageExists(t *testing.T) {
	root := filepath.Join("..", "..")
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(p, "_templ.go") ||
			!(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".templ")) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range usedID.FindAllSubmatch(src, -1) {
			id := string(m[1])
			if !Default().Has(id) && !strings.HasSuffix(p, "_test.go") {
				t.Errorf("%s uses %q, which %s.toml lacks", p, id, Reference)
			}
			used[id] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for id := range Default().Get(Reference).messages {
		dynamic := false
		for _, p := range dynamicIDs {
			dynamic = dynamic || strings.HasPrefix(id, p)
		}
		if !used[id] && !dynamic {
			t.Errorf("%s.toml has %q, which no code uses", Reference, id)
		}
	}
}

func TestNumbersAndDates(t *testing.T) {
	c := Default()
	day := time.Date(2026, time.November, 25, 14, 5, 0, 0, time.UTC)
	for _, tc := range []struct {
		code, number, credit, integer, date, dayMonth string
	}{
		{"en", "1,234.5", "1,234,567", "-1,234", "25 Nov 2026", "25 Nov"},
		{"de", "1.234,5", "1.234.567", "-1.234", "25. Nov. 2026", "25. Nov."},
	} {
		l := c.Get(tc.code)
		if got := l.Number(1234.5, 1); got != tc.number {
			t.Errorf("%s: Number = %q, want %q", tc.code, got, tc.number)
		}
		if got := l.Credit(1234567.4); got != tc.credit {
			t.Errorf("%s: Credit = %q, want %q", tc.code, got, tc.credit)
		}
		if got := l.Int(-1234); got != tc.integer {
			t.Errorf("%s: Int = %q, want %q", tc.code, got, tc.integer)
		}
		if got := l.Date(day); got != tc.date {
			t.Errorf("%s: Date = %q, want %q", tc.code, got, tc.date)
		}
		if got := l.DayMonth(day); got != tc.dayMonth {
			t.Errorf("%s: DayMonth = %q, want %q", tc.code, got, tc.dayMonth)
		}
	}
	if got := c.Get("de").Month(time.March); got != "März" {
		t.Errorf("German March = %q", got)
	}
}

func TestMatch(t *testing.T) {
	c := Default()
	for header, want := range map[string]string{
		"":                             "en",
		"de-DE,de;q=0.9,en;q=0.8":      "de",
		"de-AT":                        "de",
		"fr-FR,fr;q=0.9":               "en",
		"fr,de;q=0.5":                  "de",
		"en-GB,en;q=0.9,de;q=0.8":      "en",
		"garbage;;q=x":                 "en",
		strings.Repeat("de-DE,", 1000): "de",
	} {
		if got := c.Match(header).Code; got != want {
			t.Errorf("Match(%.40q) = %s, want %s", header, got, want)
		}
	}
}

func TestMissingMessageShows(t *testing.T) {
	l := Default().Get("de")
	if got := l.T("no.such.message"); got != "⟦no.such.message⟧" {
		t.Errorf("missing message = %q", got)
	}
	if got := From(context.Background()).Code; got != Reference {
		t.Errorf("From(empty ctx) = %s", got)
	}
	if got := From(With(context.Background(), l)).Code; got != "de" {
		t.Errorf("From(With(de)) = %s", got)
	}
}

// T takes a message German lacks from English, chooses plural forms by
// decimal counts too, and marks a placeholder not given or pairs that are
// not name, value, … rather than writing them half.
func TestT(t *testing.T) {
	formats := "[language]\nname = \"%s\"\n[format]\ndecimal_separator = \"%s\"\ngroup_separator = \"%s\"\n" +
		"months = \"a b c d e f g h i j k l\"\nweekdays = \"a b c d e f g\"\ndate = \"{{.Day}}\"\nday_month = \"{{.Day}}\"\ndate_time = \"{{.Date}}\"\n"
	c, err := Load(fstest.MapFS{
		"en.toml": {Data: []byte(fmt.Sprintf(formats, "English", ".", ",") +
			"[x]\nonly_en = \"in English\"\nfiles = { one = \"{{.Count}} file\", other = \"{{.Count}} files\" }\nhi = \"Hi, {{.Name}}\"\n")},
		"de.toml": {Data: []byte(fmt.Sprintf(formats, "Deutsch", ",", ".") +
			"[x]\nfiles = { one = \"{{.Count}} Datei\", other = \"{{.Count}} Dateien\" }\nhi = \"Hallo, {{.Name}}\"\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	de := c.Get("de")
	for _, tc := range []struct {
		got, want string
	}{
		{de.T("x.only_en"), "in English"},
		{de.T("x.files", "Count", 1), "1 Datei"},
		{de.T("x.files", "Count", 1234), "1.234 Dateien"},
		{de.T("x.files", "Count", 1.5), "1,5 Dateien"},
		{de.T("x.files", "Count", uint8(1)), "1 Datei"},
		{de.T("x.hi", "Name", "Ada"), "Hallo, Ada"},
		{de.T("x.hi"), "⟦x.hi⟧"},
		{de.T("x.hi", "Name"), "⟦x.hi⟧"},
		{de.T("x.hi", 3, "Ada"), "⟦x.hi⟧"},
		{de.T("x.none"), "⟦x.none⟧"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
