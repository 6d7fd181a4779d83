package boinc

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The element names of db_dump's records and tables.xml, in the order
// BOINC's sched/db_dump.cpp writes them: write_user, write_team,
// write_host (with its detail) and tables_file. Optional elements are
// among them; a record must hold its elements as a subsequence of these.
var (
	dbDumpUser = []string{"id", "name", "create_time", "total_credit", "expavg_credit", "expavg_time",
		"cpid", "country", "url", "teamid", "has_profile"}
	dbDumpTeam = []string{"id", "type", "name", "userid", "total_credit", "expavg_credit", "expavg_time",
		"founder_name", "create_time", "url", "name_html", "description", "country"}
	dbDumpHost = []string{"id", "userid", "total_credit", "expavg_credit", "expavg_time", "p_vendor",
		"p_model", "os_name", "os_version", "boinc_version", "vbox_version", "coprocs", "create_time",
		"rpc_time", "timezone", "ncpus", "p_fpops", "p_iops", "p_membw", "m_nbytes", "m_cache", "m_swap",
		"d_total", "d_free", "n_bwup", "n_bwdown", "avg_turnaround", "credit_per_cpu_sec", "host_cpid"}
	dbDumpTables = []string{"update_time", "credit_by_app", "nusers_total", "nteams_total", "nhosts_total",
		"nusers_deleted_total", "nhosts_deleted_total", "total_credit", "applications", "badges"}
)

// inOrder reports whether names is a subsequence of order.
func inOrder(names, order []string) bool {
	i := 0
	for _, n := range names {
		j := slices.Index(order[i:], n)
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return true
}

func TestExportWriterOrderIsDBDumps(t *testing.T) {
	full := func(r ExportRecord, order []string, root string) {
		t.Helper()
		if !inOrder(r.Names(), order) {
			t.Errorf("%s record's elements %v are not in db_dump's order %v", root, r.Names(), order)
		}
	}
	var users, teams, hosts bytes.Buffer
	u := NewExportWriter(&users, "users")
	_ = u.User(&UserRecord{ID: 1, Name: "ada", CreateTime: 5, TotalMicro: 1, CPID: strings.Repeat("a", 32), TeamID: 3})
	_ = u.User(&UserRecord{ID: 2, Name: "bob", CPID: strings.Repeat("b", 32)})
	tw := NewExportWriter(&teams, "teams")
	_ = tw.Team(&TeamRecord{ID: 3, Type: 1, Name: "T", UserID: 1, FounderName: "ada", URL: "https://t.example/", Description: "d", Country: "X"})
	hw := NewExportWriter(&hosts, "hosts")
	_ = hw.Host(&HostRecord{ID: 9, UserID: 1, BOINCVersion: "8.0.2", HostCPID: "c"})
	for _, c := range []struct {
		w           *ExportWriter
		b           *bytes.Buffer
		root, child string
		order       []string
		n           int
	}{{u, &users, "users", "user", dbDumpUser, 2}, {tw, &teams, "teams", "team", dbDumpTeam, 1},
		{hw, &hosts, "hosts", "host", dbDumpHost, 1}} {
		if err := c.w.Close(); err != nil {
			t.Fatal(err)
		}
		s := NewRecordScanner(bytes.NewReader(c.b.Bytes()), c.root, c.child)
		n := 0
		for ; s.Next(); n++ {
			full(s.Record(), c.order, c.root)
		}
		if s.Err() != nil || n != c.n {
			t.Errorf("%s: read %d records, %v; want %d", c.root, n, s.Err(), c.n)
		}
	}
	var tables bytes.Buffer
	if err := WriteTables(&tables, ExportTables{UpdateTime: 7, NUsersTotal: 2, NTeamsTotal: 1, NHostsTotal: 1, TotalCredit: 1}); err != nil {
		t.Fatal(err)
	}
	s := NewRecordScanner(strings.NewReader("<t>"+tables.String()+"</t>"), "t", "tables")
	if !s.Next() || !inOrder(s.Record().Names(), dbDumpTables) || len(s.Record()) != 5 {
		t.Errorf("tables.xml %v, %v: not db_dump's order %v", s.Record().Names(), s.Err(), dbDumpTables)
	}
}

func TestExportWriterRoundTrip(t *testing.T) {
	hostile := "</name><script>alert(1)</script>&amp; \"'<![CDATA[x]]> Ünïcode"
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	w := NewExportWriter(zw, "teams")
	for i := range 3000 { // past the writer's buffer
		if err := w.Team(&TeamRecord{ID: int64(i + 1), Type: 2, Name: hostile, TotalMicro: 1234567890123456,
			Description: hostile + "\n" + strings.Repeat("x", 100), Country: "Germany"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil || zw.Close() != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("<script>")) {
		t.Fatal("compressed output holds the markup")
	}
	s, err := NewGzipRecordScanner(&b, "teams", "team")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for s.Next() {
		n++
		r := s.Record()
		name, _ := r.Get("name")
		total, _ := r.Get("total_credit")
		if name != hostile || total != "1234567890.123456" {
			t.Fatalf("record %d: name %q, total_credit %q", n, name, total)
		}
		if _, ok := r.Get("founder_name"); ok {
			t.Fatalf("record %d has a founder_name without a listed founder", n)
		}
	}
	if s.Err() != nil || n != 3000 {
		t.Fatalf("read %d teams, %v", n, s.Err())
	}
}

func TestRecordScannerRefuses(t *testing.T) {
	for _, doc := range []string{
		"", "<teams><team><id>1</id></team>", "<users><user><id>1</id></user></users>",
		"<teams><team><id>1</id><name>x</team></teams>", "<teams>text<team><id>1</id></team></teams>",
	} {
		s := NewRecordScanner(strings.NewReader(doc), "teams", "team")
		for s.Next() {
		}
		if s.Err() == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}

func TestMicroElem(t *testing.T) {
	got := string(microElem(nil, "", "x", 1234567)) + string(microElem(nil, "", "x", 5)) + string(microElem(nil, "", "x", 0))
	want := "<x>1.234567</x>\n<x>0.000005</x>\n<x>0.000000</x>\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}
