package boinc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// genExport returns an uncompressed export of hosts.
func genExport(t testing.TB, hosts []exporttest.Host, opts exporttest.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := exporttest.WriteHostExport(&b, slices.Values(hosts), opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipped returns data compressed with gzip.
func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// scanAll reads every record of sc, with its strings.
func scanAll(sc *HostScanner) ([]ExportHost, error) {
	var hosts []ExportHost
	for sc.Next() {
		hosts = append(hosts, *sc.Host())
	}
	return hosts, sc.Err()
}

// wantHosts returns what a scanner should read for hosts.
func wantHosts(hosts []exporttest.Host) []ExportHost {
	var want []ExportHost
	for _, g := range hosts {
		w := g.AsWritten()
		want = append(want, ExportHost{ID: w.ID, UserID: w.UserID, HasUserID: !w.Hidden,
			TotalCredit: w.TotalCredit, ExpavgCredit: w.ExpavgCredit, ExpavgTime: w.ExpavgTime,
			HostCPID: w.HostCPID, CreateTime: w.CreateTime, RPCTime: w.RPCTime, NCPUs: w.NCPUs,
			PFPOps: w.PFPOps, OSName: w.OSName, PModel: w.PModel})
	}
	return want
}

// testHosts returns synthetic hosts and a few with edge-case values.
func testHosts(n int) []exporttest.Host {
	hosts := slices.Collect(exporttest.SynthHosts(n, 7))
	last := hosts[len(hosts)-1].ID
	return append(hosts,
		exporttest.Host{ID: last + 1, Hidden: true, HostCPID: "0123456789abcdef0123456789abcdef"},
		exporttest.Host{ID: last + 2, UserID: 1, TotalCredit: 0.000001, PModel: "a<b>&\"c'\tė", OSName: "Linux", NCPUs: 1},
		exporttest.Host{ID: last + 3, UserID: 2, MiscForm: true, Coprocs: "x]]>y<z>&amp;", OSName: "<none>"},
		exporttest.Host{ID: 1<<63 - 1, UserID: 1<<63 - 1, TotalCredit: 1e15, ExpavgTime: -1, CreateTime: -5, PFPOps: 1.5e10},
	)
}

func TestHostScannerRoundTrip(t *testing.T) {
	hosts := testHosts(600)
	want := wantHosts(hosts)
	for _, opts := range []exporttest.Options{{}, {ISO88591Decl: true}, {CRLF: true, ISO88591Decl: true}} {
		data := genExport(t, hosts, opts)
		readers := map[string]*HostScanner{
			"plain":       NewHostScanner(bytes.NewReader(data)),
			"one byte":    newHostScanner(iotest.OneByteReader(bytes.NewReader(data)), 16, 1<<16),
			"half reader": newHostScanner(iotest.HalfReader(bytes.NewReader(data)), 4096, 1<<16),
		}
		sc, err := NewGzipHostScanner(bytes.NewReader(gzipped(t, data)))
		if err != nil {
			t.Fatal(err)
		}
		readers["gzip"] = sc
		for name, sc := range readers {
			got, err := scanAll(sc)
			if err != nil {
				t.Fatalf("%+v %s: %v", opts, name, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%+v %s: hosts differ (-want +got):\n%s", opts, name, diff)
			}
			if sc.Count() != int64(len(want)) || sc.Next() || sc.Err() != nil {
				t.Errorf("%+v %s: after the end: Count %d, Err %v", opts, name, sc.Count(), sc.Err())
			}
		}
	}
}

// TestSynthHostsVariety checks that the generated data exercise every
// form the scanner must handle.
func TestSynthHostsVariety(t *testing.T) {
	data := string(genExport(t, slices.Collect(exporttest.SynthHosts(200, 1)), exporttest.Options{ISO88591Decl: true}))
	for _, s := range []string{
		`encoding="iso-8859-1"`, "<misc><![CDATA[{", `"docker":"<none>"`, "<coprocs>BOINC|",
		"&amp; WSL2", "<vbox_version>", "Процессор", "&#208;&#159;", "e+09</p_fpops>",
	} {
		if !strings.Contains(data, s) {
			t.Errorf("no %q in the generated export", s)
		}
	}
	if n := strings.Count(data, "<host>"); n != 200 || strings.Count(data, "<userid>") >= n {
		t.Errorf("%d records, %d with <userid>: want 200, some hidden", n, strings.Count(data, "<userid>"))
	}
	if per := len(data) / 200; per < 1000 || per > 1400 {
		t.Errorf("%d bytes a record, want about 1200", per)
	}
}

// toleratedDoc is an export with every oddity the scanner accepts.
const toleratedDoc = "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\r\n" +
	"<!DOCTYPE hosts><!-- dumped --><hosts generator=\"db_dump\">\r\n" +
	"<stats><x>1</x></stats><?pi x?><extra/>\n" +
	"<host><!-- c --><p_model>a&lt;b&#195;&#169;</p_model><os_name>Caf\xe9</os_name>\n" +
	"\t<future><nested a='>'><deeper/>text &amp; <![CDATA[</nested><host>]]></nested></future>\n" +
	"<host_cpid><![CDATA[<cp>]]>id&amp;<!-- x -->1</host_cpid>" +
	"<userid>  42 </userid><total_credit>\n1.5e+10\n</total_credit><id >7</id ><ncpus>-1</ncpus>" +
	"<p_fpops>-nan</p_fpops><expavg_time>1700000000</expavg_time><unknown></unknown></host>" +
	"<host><id>8</id><os_name/><p_fpops>inf</p_fpops><expavg_credit>-0.5</expavg_credit></host>" +
	"</hosts>\n<!-- end -->\n"

func TestHostScannerTolerates(t *testing.T) {
	got, err := scanAll(newHostScanner(strings.NewReader(toleratedDoc), 8, 1<<10))
	if err != nil {
		t.Fatal(err)
	}
	want := []ExportHost{
		{ID: 7, UserID: 42, HasUserID: true, TotalCredit: 1.5e10, ExpavgTime: 1.7e9,
			HostCPID: "<cp>id&1", NCPUs: -1, PFPOps: math.NaN(), PModel: "a<bé", OSName: "Café"},
		{ID: 8, ExpavgCredit: -0.5, PFPOps: math.Inf(1)},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("hosts differ (-want +got):\n%s", diff)
	}
}

func TestHostScannerEmptyRoots(t *testing.T) {
	for _, doc := range []string{"<hosts/>", "<hosts></hosts>", "<?xml version='1.0'?>\n<hosts>\n</hosts>\n"} {
		sc := NewHostScanner(strings.NewReader(doc))
		if sc.Next() || sc.Err() != nil || sc.Count() != 0 {
			t.Errorf("%q: Next %v, Err %v, Count %d", doc, sc.Next(), sc.Err(), sc.Count())
		}
	}
}

func TestHostScannerIDsWithoutStrings(t *testing.T) {
	hosts := testHosts(50)
	sc := NewHostScanner(bytes.NewReader(genExport(t, hosts, exporttest.Options{})))
	for i := 0; sc.Next(); i++ {
		uid, ok := sc.UserID()
		if sc.ID() != hosts[i].ID || ok == hosts[i].Hidden || ok && uid != hosts[i].UserID {
			t.Fatalf("record %d: ID %d, UserID %d %v; want %+v", i+1, sc.ID(), uid, ok, hosts[i])
		}
	}
	if sc.Err() != nil || sc.Count() != int64(len(hosts)) {
		t.Fatalf("Err %v, Count %d", sc.Err(), sc.Count())
	}
}

// Records with the same OS or CPU name share one string: the scanner
// interns them instead of allocating a copy per record. The strings
// outlive the records they came from.
func TestHostScannerInternsNames(t *testing.T) {
	hosts := testHosts(300)
	want := wantHosts(hosts)
	for _, opts := range []exporttest.Options{{}, {ISO88591Decl: true}} { // the latter escapes non-ASCII bytes
		var names []string // OSName and PModel of each record, in turn
		sc := NewHostScanner(bytes.NewReader(genExport(t, hosts, opts)))
		for sc.Next() {
			h := sc.Host()
			names = append(names, h.OSName, h.PModel)
		}
		if sc.Err() != nil || len(names) != 2*len(want) {
			t.Fatalf("%+v: Err %v, %d records, want %d", opts, sc.Err(), len(names)/2, len(want))
		}
		first := map[string]*byte{} // where the first record with each name keeps it
		repeats, copies := 0, 0
		for i, name := range names {
			if w := []string{want[i/2].OSName, want[i/2].PModel}[i%2]; name != w {
				t.Fatalf("%+v: record %d has %q, want %q: its string changed after the scanner moved on", opts, i/2+1, name, w)
			}
			if name == "" {
				continue
			}
			p, seen := first[name]
			if !seen {
				first[name] = unsafe.StringData(name)
				continue
			}
			repeats++
			if p != unsafe.StringData(name) {
				if copies++; copies == 1 {
					t.Errorf("%+v: record %d has its own copy of %q", opts, i/2+1, name)
				}
			}
		}
		if copies > 0 {
			t.Errorf("%+v: %d of %d repeated names are copies, not shared", opts, copies, repeats)
		}
		if repeats < len(names)/2 {
			t.Errorf("%+v: only %d of %d names repeat: the data does not test interning", opts, repeats, len(names))
		}
	}
	// And interning keeps allocations down.
	data := genExport(t, hosts, exporttest.Options{})
	allocs := testing.AllocsPerRun(5, func() {
		sc := NewHostScanner(bytes.NewReader(data))
		for sc.Next() {
			sc.Host()
		}
	})
	// A scanner, its buffer and cache, one HostCPID per record and the
	// distinct OS and CPU names; no allocation per record otherwise.
	if max := 303.0 + 60; allocs > max {
		t.Errorf("%.0f allocations to scan 303 records, want at most %.0f", allocs, max)
	}
}

// TestHostScannerMatchesEncodingXML checks the scanner against the
// encoding/xml reader of the benchmark, on the benchmark's kind of data.
func TestHostScannerMatchesEncodingXML(t *testing.T) {
	data := genExport(t, testHosts(500), exporttest.Options{ISO88591Decl: true, CRLF: true})
	var want []ExportHost
	err := xmlHosts(bytes.NewReader(data), func(h *ExportHost) {
		if h.ID%4 == 1 {
			// BOINC escapes each byte of a non-ASCII character; XML
			// decodes each reference as a character.
			h.PModel = string(AppendUnescaped(nil, []byte(xmlByteRefs(h.PModel))))
		}
		want = append(want, *h)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := scanAll(NewHostScanner(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("HostScanner and encoding/xml differ (-xml +cobble):\n%s", diff)
	}
}

// xmlByteRefs turns the characters U+0080 to U+00FF that encoding/xml
// makes of BOINC's per-byte references back into references.
func xmlByteRefs(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x80 && r <= 0xff {
			fmt.Fprintf(&b, "&#%d;", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
