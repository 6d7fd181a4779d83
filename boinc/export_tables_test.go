package boinc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

func TestParseTablesRoundTrip(t *testing.T) {
	want := ExportTables{UpdateTime: 1700000123, NUsersTotal: 41234, NTeamsTotal: 1234, NHostsTotal: 98765, TotalCredit: 12345678901.25}
	var b bytes.Buffer
	if err := exporttest.WriteTables(&b, exporttest.Tables(want)); err != nil {
		t.Fatal(err)
	}
	got, err := ParseTables(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("tables differ (-want +got):\n%s", diff)
	}
}

func TestParseTablesTolerates(t *testing.T) {
	const doc = "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<!-- db_dump -->\r\n<tables>\r\n" +
		"  <update_time> 1700000000 </update_time>\r\n  <nusers_total>12</nusers_total>\r\n" +
		"  <projects><project><name>x</name><nusers_total>99</nusers_total></project></projects>\r\n" +
		"  <total_credit>1.5e+10</total_credit><nhosts_active>3</nhosts_active><empty/>\r\n</tables>\r\n"
	got, err := ParseTables(strings.NewReader(doc))
	want := &ExportTables{UpdateTime: 1700000000, NUsersTotal: 12, TotalCredit: 1.5e10}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("ParseTables = %+v, %v; want %+v", got, err, want)
	}
}

func TestParseTablesErrors(t *testing.T) {
	for _, tt := range []struct{ input, msg string }{
		{"", "no <tables> element"},
		{"<hosts></hosts>", "root element is <hosts>, want <tables>"},
		{"junk <tables>", `text "junk " before <tables>`},
		{"<tables><nusers_total>1</nusers_total></tables>", "no <update_time>"},
		{"<tables><update_time>1</update_time>", "ends before </tables>"},
		{"<tables><update_time>soon</update_time></tables>", `<update_time> is not an integer: "soon"`},
		{"<tables><update_time>1</update_time><total_credit>inf</total_credit></tables>", "<total_credit> is not a number"},
		{"<tables><update_time>1</update_time>" + strings.Repeat(" ", maxTablesSize) + "</tables>", "larger than 1048576 bytes"},
	} {
		got, err := ParseTables(strings.NewReader(tt.input))
		if got != nil || !errors.Is(err, ErrBadExport) || !strings.Contains(err.Error(), "tables.xml: "+tt.msg) {
			t.Errorf("%.40q: %+v, %v; want an error saying %q", tt.input, got, err, tt.msg)
		}
	}
}
