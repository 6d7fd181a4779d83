package views

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// The science, compute and locations sections speak the language the
// context carries, keyword names included; English keeps BOINC's names.
func TestSettingsSectionsInGerman(t *testing.T) {
	f := PrefsForm{Keywords: accounting.Keywords(), KeywordChoice: map[int]accounting.KeywordAnswer{11: "yes", 1: "no"},
		Preset: accounting.PresetLowPower, Location: accounting.DefaultLocation}
	render := func(code string) string {
		ctx := locale.With(context.Background(), locale.Default().Get(code))
		var buf bytes.Buffer
		if err := ScienceSection(f).Render(ctx, &buf); err != nil {
			t.Fatal(err)
		}
		if err := ComputeSection(f).Render(ctx, &buf); err != nil {
			t.Fatal(err)
		}
		if err := PrefsSummary(f).Render(ctx, &buf); err != nil {
			t.Fatal(err)
		}
		locs := LocationsForm{Locations: []accounting.Location{{Name: accounting.DefaultLocation, Preset: accounting.PresetMaximum}}}
		if err := LocationsSection(locs).Render(ctx, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	de := render("de")
	for _, want := range []string{"Auswahl speichern", "Proteinforschung", "Klimaforschung", "Deutschland",
		`aria-label="Astronomie: nein" checked`, "Ja zu Proteinforschung; Nein zu Astronomie; Vielleicht zu allen anderen.",
		"Stromsparend.", "Höchstens so viel % der CPUs nutzen", "Wo geforscht wird (31 Orte)", "Maximal ·",
		// The locations section's own heading and button.
		`<h2 id="locations-h">Standorte</h2>`, ">Standort hinzufügen</button>"} {
		if !strings.Contains(de, want) {
			t.Errorf("the German sections lack %q", want)
		}
	}
	for _, english := range []string{"Protein research", "Save science", "Low power", "Yes to"} {
		if strings.Contains(de, english) {
			t.Errorf("the German sections still say %q", english)
		}
	}
	en := render("en")
	for _, want := range []string{"Save science", `aria-label="Protein research: yes" checked`,
		"Yes to Protein research; no to Astronomy; maybe to the rest.", "Low power.", "Search for Extraterrestrial Intelligence"} {
		if !strings.Contains(en, want) {
			t.Errorf("the English sections lack %q", want)
		}
	}
}

// Every keyword of BOINC's vocabulary has its name in the English and
// German catalogs, English says BOINC's own name, and the catalogs name no
// keyword that BOINC lacks.
func TestKeywordNamesInCatalog(t *testing.T) {
	known := map[string]bool{}
	for _, l := range []*locale.Lang{locale.Default().Get("en"), locale.Default().Get("de")} {
		if l == nil {
			t.Fatal("no English or no German catalog")
		}
		for _, k := range accounting.Keywords() {
			id := "keyword." + strconv.Itoa(k.ID)
			known[id] = true
			if got := l.T(id); strings.Contains(got, "⟦") || got == "" {
				t.Errorf("%s.toml has no %s (%s)", l.Code, id, k.Name)
			} else if l.Code == "en" && got != k.Name {
				t.Errorf("%s in English: %q, want BOINC's %q", id, got, k.Name)
			}
		}
		for id := range l.Texts() {
			if strings.HasPrefix(id, "keyword.") && !known[id] {
				t.Errorf("%s.toml has %s, which is no BOINC keyword", l.Code, id)
			}
		}
	}
	en := locale.With(context.Background(), locale.Default().Get("en"))
	for _, k := range accounting.Keywords() {
		if got := keywordName(en, k); got != k.Name {
			t.Errorf("keyword %d in English: %q, want BOINC's %q", k.ID, got, k.Name)
		}
	}
	if got := keywordNames(locale.With(context.Background(), locale.Default().Get("de")), []int{35, 999}); got[0] != "Klimaforschung" || got[1] != "Stichwort 999" {
		t.Errorf("keywordNames in German = %q", got)
	}
}
