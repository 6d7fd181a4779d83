package boinc

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/cobble-am/cobble/boinc/exporttest"
)

// benchExport holds the data of BenchmarkHostExport, made once per run.
var benchExport struct {
	once    sync.Once
	hosts   int
	plain   []byte
	gzipped []byte
}

// benchData returns the uncompressed and gzip-compressed export of
// BenchmarkHostExport: 20,000 hosts, or COBBLE_BENCH_HOSTS.
func benchData(b *testing.B) (plain, gz []byte, hosts int) {
	e := &benchExport
	e.once.Do(func() {
		e.hosts = 20_000
		if v := os.Getenv("COBBLE_BENCH_HOSTS"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				b.Fatalf("COBBLE_BENCH_HOSTS=%q: want a positive number", v)
			}
			e.hosts = n
		}
		var buf bytes.Buffer
		if err := exporttest.WriteHostExport(&buf, exporttest.SynthHosts(e.hosts, 1), exporttest.Options{ISO88591Decl: true}); err != nil {
			b.Fatal(err)
		}
		e.plain = buf.Bytes()
		var zbuf bytes.Buffer
		zw := gzip.NewWriter(&zbuf)
		_, err := zw.Write(e.plain)
		if err = errors.Join(err, zw.Close()); err != nil {
			b.Fatal(err)
		}
		e.gzipped = zbuf.Bytes()
	})
	return e.plain, e.gzipped, e.hosts
}

// BenchmarkHostExport compares HostScanner with encoding/xml's token
// decoder picking the same fields of the same export, uncompressed in
// memory and gzip-compressed. MB/s counts uncompressed bytes. The
// encoding/xml cases report how many times as long as the HostScanner
// case before them they take (cobble_speedup). Set COBBLE_BENCH_HOSTS=1000000
// for a file the size of a large project's.
func BenchmarkHostExport(b *testing.B) {
	plain, gz, hosts := benchData(b)
	cases := []struct {
		name string
		gzip bool
		scan func(io.Reader) (int, error)
		vs   string // the case this one is compared with, run before it
	}{
		{"cobble", false, scanCobble, ""},
		{"cobble_ids_only", false, scanCobbleIDs, ""},
		{"encoding_xml", false, scanEncodingXML, "cobble"},
		{"cobble_gzip", true, scanCobbleGzip, ""},
		{"encoding_xml_gzip", true, scanEncodingXMLGzip, "cobble_gzip"},
	}
	perHost := map[string]float64{} // seconds a host, by case
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			data := plain
			if c.gzip {
				data = gz
			}
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			for b.Loop() {
				n, err := c.scan(bytes.NewReader(data))
				if err != nil || n != hosts {
					b.Fatalf("%d hosts, %v; want %d", n, err, hosts)
				}
			}
			perHost[c.name] = b.Elapsed().Seconds() / float64(hosts) / float64(b.N)
			b.ReportMetric(1/perHost[c.name], "hosts/s")
			if vs := perHost[c.vs]; vs > 0 {
				b.ReportMetric(perHost[c.name]/vs, c.vs+"_speedup")
			}
		})
	}
}

// benchSink keeps the fields the benchmarks read.
var benchSink struct {
	credit float64
	n      int
	cpid   string
}

// scanCobble reads every field of every record with a HostScanner.
func scanCobble(r io.Reader) (int, error) {
	sc := NewHostScanner(r)
	for sc.Next() {
		useHost(sc.Host())
	}
	return int(sc.Count()), sc.Err()
}

// useHost touches the fields of h the way a consumer would.
func useHost(h *ExportHost) {
	benchSink.credit += h.TotalCredit + h.ExpavgCredit + h.ExpavgTime + h.PFPOps
	benchSink.n += int(h.ID+h.UserID+h.CreateTime+h.RPCTime) + h.NCPUs + len(h.OSName) + len(h.PModel)
	benchSink.cpid = h.HostCPID
}

// scanCobbleIDs reads only the ids, as a filter looking for known hosts
// does before it calls Host.
func scanCobbleIDs(r io.Reader) (int, error) {
	sc := NewHostScanner(r)
	for sc.Next() {
		uid, _ := sc.UserID()
		benchSink.n += int(sc.ID() + uid)
	}
	return int(sc.Count()), sc.Err()
}

// scanCobbleGzip is scanCobble on a gzip-compressed export.
func scanCobbleGzip(r io.Reader) (int, error) {
	sc, err := NewGzipHostScanner(r)
	if err != nil {
		return 0, err
	}
	defer sc.Close()
	for sc.Next() {
		useHost(sc.Host())
	}
	return int(sc.Count()), sc.Err()
}

// scanEncodingXMLGzip is scanEncodingXML on a gzip-compressed export.
func scanEncodingXMLGzip(r io.Reader) (int, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0, err
	}
	return scanEncodingXML(zr)
}

// scanEncodingXML does the work of scanCobble with encoding/xml's token
// decoder: it picks the same fields of each <host> and converts them.
func scanEncodingXML(r io.Reader) (int, error) {
	n := 0
	err := xmlHosts(r, func(h *ExportHost) {
		useHost(h)
		n++
	})
	return n, err
}

// xmlHosts calls f for each <host> of the export r, read with
// encoding/xml's Decoder.Token. The ExportHost is reused.
func xmlHosts(r io.Reader, f func(*ExportHost)) error {
	d := xml.NewDecoder(r)
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	var h ExportHost
	var field string
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth++; depth == 2 {
				h = ExportHost{}
			}
			field = t.Name.Local
		case xml.CharData:
			if depth == 3 {
				if err := setXMLField(&h, field, t); err != nil {
					return err
				}
			}
		case xml.EndElement:
			if depth--; depth == 1 {
				f(&h)
			}
			field = ""
		}
	}
}

// setXMLField stores the text of a child of <host> in h.
func setXMLField(h *ExportHost, field string, text []byte) error {
	var err error
	switch field {
	case "id":
		h.ID, err = strconv.ParseInt(string(text), 10, 64)
	case "userid":
		h.UserID, err = strconv.ParseInt(string(text), 10, 64)
		h.HasUserID = true
	case "total_credit":
		h.TotalCredit, err = strconv.ParseFloat(string(text), 64)
	case "expavg_credit":
		h.ExpavgCredit, err = strconv.ParseFloat(string(text), 64)
	case "expavg_time":
		h.ExpavgTime, err = strconv.ParseFloat(string(text), 64)
	case "create_time":
		h.CreateTime, err = strconv.ParseInt(string(text), 10, 64)
	case "rpc_time":
		h.RPCTime, err = strconv.ParseInt(string(text), 10, 64)
	case "ncpus":
		h.NCPUs, err = strconv.Atoi(string(text))
	case "p_fpops":
		h.PFPOps, err = strconv.ParseFloat(string(text), 64)
	case "host_cpid":
		h.HostCPID = string(text)
	case "os_name":
		h.OSName = string(text)
	case "p_model":
		h.PModel = string(text)
	}
	return err
}
