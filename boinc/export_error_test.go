package boinc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// exportDoc returns an export holding the given records.
func exportDoc(records ...string) string {
	return "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n<hosts>\n" + strings.Join(records, "\n") + "\n</hosts>\n"
}

// nthIndex returns the index of the n-th (1-based) occurrence of sub in s.
func nthIndex(s, sub string, n int) int {
	at := -1
	for range n {
		i := strings.Index(s[at+1:], sub)
		if i < 0 {
			return -1
		}
		at += 1 + i
	}
	return at
}

// errorCase is an input the scanner must reject.
type errorCase struct {
	name     string
	input    string
	msg      string // what the error must say
	records  int64  // complete records before the problem
	inRecord bool
	offset   int // -1: not checked
}

// errorCases returns the inputs TestHostScannerErrors rejects.
func errorCases(t testing.TB) []errorCase {
	three := string(genExport(t, testHosts(3)[:3], exporttest.Options{}))
	noEnd := three[:strings.LastIndex(three, "</hosts>")]
	cut := three[:nthIndex(three, "<host>", 3)+300]
	noID := exportDoc("<host><id>1</id></host>", "<host><total_credit>5</total_credit></host>")
	credit := exportDoc("<host><id>1</id><total_credit>12x</total_credit></host>")
	nested := exportDoc("<host><id>1</id>", "<host><id>2</id></host>")
	users := "<?xml version=\"1.0\"?>\n<users><user><id>1</id></user></users>\n"
	deep := exportDoc("<host><id>1</id>" + strings.Repeat("<a>", 70) + strings.Repeat("</a>", 70) + "</host>")
	return []errorCase{
		{"empty", "", "empty input", 0, false, 0},
		{"declaration only", "<?xml version=\"1.0\"?>\n", "input ends before the <hosts> element", 0, false, 22},
		{"text before root", "hello", `text "hello" where a tag should be`, 0, false, 0},
		{"wrong root", users, "root element is <users>, want <hosts>", 0, false, strings.Index(users, "<users>")},
		{"no </hosts>", noEnd, "input ends before </hosts>", 3, false, len(noEnd)},
		{"cut in record", cut, "input ends inside the record, before </host>", 2, true, nthIndex(cut, "<host>", 3)},
		{"no id", noID, "record has no <id>", 1, true, nthIndex(noID, "<host>", 2)},
		{"bad credit", credit, `<total_credit> is not a number: "12x"`, 0, true, strings.Index(credit, "<total_c")},
		{"bad id", exportDoc("<host><id>abc</id></host>"), `<id> is not an integer: "abc"`, 0, true, -1},
		{"empty userid", exportDoc("<host><id>1</id><userid/></host>"), `<userid> is not an integer: ""`, 0, true, -1},
		{"huge ncpus", exportDoc("<host><id>1</id><ncpus>99999999999999999999</ncpus></host>"), "<ncpus> is not an integer", 0, true, -1},
		{"nan credit", exportDoc("<host><id>1</id><expavg_credit>nan</expavg_credit></host>"), "<expavg_credit> is not a number", 0, true, -1},
		{"second id", exportDoc("<host><id>1</id><id>2</id></host>"), "second <id> in the record", 0, true, -1},
		{"host in host", nested, "<host> inside <host>: the record is not closed", 0, true, nthIndex(nested, "<host>", 2)},
		{"host in unknown", exportDoc("<host><id>1</id><x><host></host></x></host>"), "<host> inside <x>", 0, true, -1},
		{"garbage", exportDoc("<host><id>1</id> garbage <x/></host>"), `text "garbage <x/></host>\n</hosts>\n" where a tag should be`, 0, true, -1},
		{"malformed tag", exportDoc("<host><id>1</id>< id>2</id></host>"), `malformed markup "< id>`, 0, true, -1},
		{"crossed tags", exportDoc("<host><id>1</id><a><b></a></b></host>"), "</a> closes <b>", 0, true, -1},
		{"wrong end tag", exportDoc("<host><id>1</ID></host>"), "</ID> inside <id>", 0, true, -1},
		{"child in field", exportDoc("<host><id><b>1</b></id></host>"), "<b> inside <id>", 0, true, -1},
		{"hosts closed in host", exportDoc("<host><id>1</id></hosts>"), "</hosts> inside <host>", 0, true, -1},
		{"too deep", deep, "elements nested more than 64 deep", 0, true, -1},
		{"open comment", exportDoc("<host><id>1</id><!-- x")[:60], "input ends inside the record", 0, true, 52},
		{"cdata in hosts", exportDoc("<![CDATA[x]]>"), "a CDATA section where <host> or </hosts> should be", 0, false, 52},
		{"after end", exportDoc("<host><id>1</id></host>") + "<hosts>", "<hosts> after </hosts>", 1, false, -1},
		{"gzip", string(gzipped(t, []byte(three))), "the input is gzip-compressed; use NewGzipHostScanner", 0, false, 0},
	}
}

func TestHostScannerErrors(t *testing.T) {
	for _, tt := range errorCases(t) {
		for _, size := range []int{exportBufSize, 7} {
			sc := newHostScanner(strings.NewReader(tt.input), size, exportMaxItem)
			_, err := scanAll(sc)
			var e *ExportError
			if !errors.Is(err, ErrBadExport) || !errors.As(err, &e) {
				t.Errorf("%s: error %v, want an *ExportError wrapping ErrBadExport", tt.name, err)
				continue
			}
			if !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("%s: message %q, want %q", tt.name, e.Msg, tt.msg)
			}
			if e.Records != tt.records || e.InRecord != tt.inRecord || tt.offset >= 0 && e.Offset != int64(tt.offset) {
				t.Errorf("%s: at %+v, want records %d, in record %v, offset %d", tt.name, e, tt.records, tt.inRecord, tt.offset)
			}
			where := fmt.Sprintf("byte %d, after record %d: ", e.Offset, e.Records)
			if e.InRecord {
				where = fmt.Sprintf("record %d, byte %d: ", e.Records+1, e.Offset)
			}
			if !strings.Contains(err.Error(), where) || sc.Count() != e.Records || sc.Next() {
				t.Errorf("%s: Error() = %q, Count %d; want it to say %q", tt.name, err, sc.Count(), where)
			}
		}
	}
}

func TestHostScannerRecordTooLarge(t *testing.T) {
	big := strings.Repeat("x", exportMaxItem+10)
	doc := exportDoc("<host><id>1</id></host>", "<host><id>2</id><p_model>"+big+"</p_model></host>")
	_, err := scanAll(NewHostScanner(strings.NewReader(doc)))
	want := fmt.Sprintf("record 2, byte %d: the record is larger than 1048576 bytes", nthIndex(doc, "<host>", 2))
	if !errors.Is(err, ErrBadExport) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	doc = exportDoc("<junk>" + big + "</junk>")
	_, err = scanAll(newHostScanner(strings.NewReader(doc), 1024, 4096))
	if !errors.Is(err, ErrBadExport) || !strings.Contains(fmt.Sprint(err), "an element is larger than 4096 bytes") {
		t.Errorf("error %v, want an element larger than 4096 bytes", err)
	}
}

func TestHostScannerRandomGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		b := make([]byte, rng.IntN(3000))
		for j := range b {
			b[j] = byte(rng.Uint32())
			if j > 0 && rng.IntN(8) == 0 {
				b[j] = "<>/!?&;"[rng.IntN(7)]
			}
		}
		if i%2 == 0 {
			b = append([]byte("<hosts><host><id>1</id>"), b...)
		}
		n, err := scanAll(NewHostScanner(bytes.NewReader(b)))
		if !errors.Is(err, ErrBadExport) || len(n) > 1 {
			t.Fatalf("garbage %d: %d hosts, %v; want an error wrapping ErrBadExport", i, len(n), err)
		}
	}
}
