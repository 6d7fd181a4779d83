package accounting

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeywordVocabulary(t *testing.T) {
	seen := map[int]bool{}
	for _, k := range Keywords() {
		if seen[k.ID] {
			t.Errorf("id %d appears twice", k.ID)
		}
		seen[k.ID] = true
		if k.Parent == 0 {
			if k.Level != 0 {
				t.Errorf("%d %q: top level at level %d", k.ID, k.Name, k.Level)
			}
			continue
		}
		p, ok := KeywordByID(k.Parent)
		switch {
		case !ok || !seen[k.Parent]:
			t.Errorf("%d %q: parent %d unknown or listed after it", k.ID, k.Name, k.Parent)
		case p.Category != k.Category || p.Level != k.Level-1:
			t.Errorf("%d %q: parent %d %q is of another category or level", k.ID, k.Name, p.ID, p.Name)
		}
	}
	// BOINC's ids 1..55 are all there.
	for id := 1; id <= 55; id++ {
		if !seen[id] {
			t.Errorf("BOINC keyword %d is missing", id)
		}
	}
	want := map[int]string{1: "Astronomy", 11: "Protein research", 35: "Climate research", 27: "CERN", 55: "Arizona State University"}
	for id, name := range want {
		if k, _ := KeywordByID(id); k.Name != name {
			t.Errorf("keyword %d is %q, want %q", id, k.Name, name)
		}
	}
	if k, _ := KeywordByID(18); !cmp.Equal(k.Ancestors(), []int{14, 13, 9}) || k.Category != CategoryScience {
		t.Errorf("prostate cancer: ancestors %v, category %d", k.Ancestors(), k.Category)
	}
	if k, _ := KeywordByID(37); !cmp.Equal(k.Ancestors(), []int{36, 20}) || k.Category != CategoryLocation {
		t.Errorf("Charles University: ancestors %v, category %d", k.Ancestors(), k.Category)
	}
}

func TestParseKeywords(t *testing.T) {
	tests := []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"11", []int{11}},
		{" protein RESEARCH , 1,, Astronomy", []int{11, 1}},
		{"Detection and  study of pulsars", []int{3}},
		{"proteins, medicine, climate", []int{11, 9, 35}},
	}
	for _, tt := range tests {
		got, err := ParseKeywords(tt.in)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("ParseKeywords(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"Astrology", "0", "56", "-1", "1, nope"} {
		_, err := ParseKeywords(bad)
		var invalid *ValidationError
		if !errors.As(err, &invalid) || invalid.Fields["keywords"].IsZero() {
			t.Errorf("ParseKeywords(%q) = %v, want a validation error on keywords", bad, err)
		}
	}
}

func TestFormatKeywordsReadsBack(t *testing.T) {
	var all []int
	for _, k := range Keywords() {
		all = append(all, k.ID)
	}
	text := FormatKeywords(all)
	got, err := ParseKeywords(text)
	if err != nil || !cmp.Equal(got, all) {
		t.Errorf("ParseKeywords(FormatKeywords(all)) = %v, %v", got, err)
	}
}
