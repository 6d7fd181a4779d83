// Package exporttest writes synthetic BOINC credit exports (host.gz's
// contents and tables.xml) in the layout of BOINC's db_dump, for tests and
// benchmarks of the scanner in package boinc and of reconciliation, as
// net/http/httptest serves net/http's tests. It imports only the standard
// library, so that package boinc's own tests can use it.
package exporttest

import (
	"io"
	"iter"
	"strconv"
	"strings"
)

// Host is one synthetic <host> record for [WriteHostExport], for
// tests and benchmarks. Text fields must be valid UTF-8 without control
// characters other than tab and newline; numbers must be finite.
type Host struct {
	ID     int64
	UserID int64
	Hidden bool // omit <userid>, as for an owner who hides their hosts

	// TotalCredit, ExpavgCredit and ExpavgTime are written with six
	// decimals, as db_dump does.
	TotalCredit  float64
	ExpavgCredit float64
	ExpavgTime   float64
	HostCPID     string
	PModel       string
	OSName       string
	NCPUs        int
	// PFPOps is written with six decimals, or, for one id in five, in
	// exponent form ("3.5e+09").
	PFPOps     float64
	CreateTime int64
	RPCTime    int64

	// Coprocs is the coprocessor summary an older server writes in
	// <coprocs>, such as "BOINC|7.20.5[CUDA|NVIDIA GeForce RTX 3080|1|10240MB|53035|200]";
	// empty for none.
	Coprocs string
	// MiscForm writes <misc><![CDATA[{json}]]></misc>, as newer servers
	// do, in place of <coprocs>.
	MiscForm bool
}

// AsWritten returns h as a scanner reads it back: floats rounded to the
// six decimals written (p_fpops in exponent form is exact), UserID zero
// for a hidden host.
func (h Host) AsWritten() Host {
	h.TotalCredit, h.ExpavgCredit = sixDecimals(h.TotalCredit), sixDecimals(h.ExpavgCredit)
	h.ExpavgTime = sixDecimals(h.ExpavgTime)
	if h.Hidden {
		h.UserID = 0
	}
	if !expFPOps(h.ID) {
		h.PFPOps = sixDecimals(h.PFPOps)
	}
	return h
}

// sixDecimals returns v as it reads back after printing with six decimals.
func sixDecimals(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 6, 64), 64)
	return r
}

// expFPOps reports whether the record with this id gets p_fpops in
// exponent form.
func expFPOps(id int64) bool {
	return id%5 == 0
}

// Options are the variations of a generated export.
type Options struct {
	// ISO88591Decl declares encoding="iso-8859-1", as older servers do
	// over bytes that are really UTF-8, instead of utf-8.
	ISO88591Decl bool
	// CRLF ends lines with "\r\n" instead of "\n".
	CRLF bool
}

// WriteHostExport writes an uncompressed host export of the hosts to w
// in the layout of BOINC's db_dump: a declaration, <hosts>, one <host>
// of about 1.2 KB per host, </hosts>. Fields Cobble does not read (vendor,
// OS version, memory, disk, ...) get realistic values derived from the
// id. Some records write the non-ASCII bytes of p_model as numeric
// references, one per byte, as BOINC's own escaping does. It streams:
// memory use does not grow with the number of hosts. It returns the first
// error from w.
func WriteHostExport(w io.Writer, hosts iter.Seq[Host], opts Options) error {
	nl, enc := "\n", "utf-8"
	if opts.CRLF {
		nl = "\r\n"
	}
	if opts.ISO88591Decl {
		enc = "iso-8859-1"
	}
	buf := make([]byte, 0, 80<<10)
	buf = append(buf, `<?xml version="1.0" encoding="`+enc+`"?>`+nl+"<hosts>"+nl...)
	for h := range hosts {
		buf = genHost(buf, h, nl)
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "</hosts>"+nl...)
	_, err := w.Write(buf)
	return err
}

// Tables is the content of a project's tables.xml.
type Tables struct {
	UpdateTime                            int64 // Unix seconds
	NUsersTotal, NTeamsTotal, NHostsTotal int64
	TotalCredit                           float64
}

// WriteTables writes t to w as a project's tables.xml.
func WriteTables(w io.Writer, t Tables) error {
	b := []byte(`<?xml version="1.0" encoding="iso-8859-1"?>` + "\n<tables>\n")
	b = genInt(b, "update_time", t.UpdateTime, "\n")
	b = genInt(b, "nusers_total", t.NUsersTotal, "\n")
	b = genInt(b, "nteams_total", t.NTeamsTotal, "\n")
	b = genInt(b, "nhosts_total", t.NHostsTotal, "\n")
	b = genFloat(b, "total_credit", t.TotalCredit, "\n")
	b = append(b, "</tables>\n"...)
	_, err := w.Write(b)
	return err
}

// genHost appends the <host> record of h.
func genHost(b []byte, h Host, nl string) []byte {
	id := h.ID
	b = append(b, "<host>"...)
	b = append(b, nl...)
	b = genInt(b, "id", id, nl)
	if !h.Hidden {
		b = genInt(b, "userid", h.UserID, nl)
	}
	b = genFloat(b, "total_credit", h.TotalCredit, nl)
	b = genFloat(b, "expavg_credit", h.ExpavgCredit, nl)
	b = genFloat(b, "expavg_time", h.ExpavgTime, nl)
	b = genText(b, "p_vendor", vendorOf(h.PModel), nl)
	b = genStart(b, "p_model")
	if id%4 == 1 {
		b = genByteRefs(b, h.PModel)
	} else {
		b = escape(b, h.PModel)
	}
	b = genEnd(b, "p_model", nl)
	b = genText(b, "os_name", h.OSName, nl)
	b = genText(b, "os_version", osVersionOf(h.OSName, id), nl)
	b = genVersions(b, h, nl)
	b = genInt(b, "create_time", h.CreateTime, nl)
	b = genInt(b, "rpc_time", h.RPCTime, nl)
	b = genInt(b, "timezone", (id%25-12)*3600, nl)
	b = genInt(b, "ncpus", int64(h.NCPUs), nl)
	if expFPOps(id) {
		b = genStart(b, "p_fpops")
		b = strconv.AppendFloat(b, h.PFPOps, 'e', -1, 64)
		b = genEnd(b, "p_fpops", nl)
	} else {
		b = genFloat(b, "p_fpops", h.PFPOps, nl)
	}
	b = genMachine(b, id, nl)
	b = genText(b, "host_cpid", h.HostCPID, nl)
	return append(append(b, "</host>"...), nl...)
}

// genVersions appends the optional boinc_version, vbox_version and
// coprocs or misc elements of h.
func genVersions(b []byte, h Host, nl string) []byte {
	if h.ID%10 != 3 {
		b = genText(b, "boinc_version", clientVersions[h.ID%int64(len(clientVersions))], nl)
	}
	if h.ID%4 == 2 {
		b = genText(b, "vbox_version", "7.0.12", nl)
	}
	switch {
	case h.MiscForm:
		b = genStart(b, "misc")
		b = append(b, `<![CDATA[{"coprocs":"`...)
		b = append(b, strings.ReplaceAll(h.Coprocs, "]]>", "]]]]><![CDATA[>")...)
		b = append(b, `","docker":"<none>","wsl":{"distros":[]},"note":"a<b && b>c"}]]>`...)
		b = genEnd(b, "misc", nl)
	case h.Coprocs != "":
		b = genText(b, "coprocs", h.Coprocs, nl)
	}
	return b
}

// genMachine appends the hardware and network elements Cobble does
// not read, with values derived from id.
func genMachine(b []byte, id int64, nl string) []byte {
	f := float64(id%997 + 1)
	b = genFloat(b, "p_iops", 1.1e10+f*1.3e6, nl)
	b = genFloat(b, "p_membw", 1e9, nl)
	b = genFloat(b, "m_nbytes", float64(8<<30)+f*4096, nl)
	b = genFloat(b, "m_cache", 8388608, nl)
	b = genFloat(b, "m_swap", float64(2<<30), nl)
	b = genFloat(b, "d_total", 499963174912-f*1e6, nl)
	b = genFloat(b, "d_free", 123456789012+f*3e6, nl)
	b = genFloat(b, "n_bwup", 23456.789012+f, nl)
	b = genFloat(b, "n_bwdown", 345678.901234+f, nl)
	b = genFloat(b, "avg_turnaround", 86400+f*37.5, nl)
	return genFloat(b, "credit_per_cpu_sec", 0.004567+f/1e7, nl)
}

// genStart appends an indented start tag.
func genStart(b []byte, name string) []byte {
	return append(append(append(b, "    <"...), name...), '>')
}

// genEnd appends an end tag and a line end.
func genEnd(b []byte, name, nl string) []byte {
	return append(append(append(append(b, "</"...), name...), '>'), nl...)
}

// genInt appends an element holding the integer v.
func genInt(b []byte, name string, v int64, nl string) []byte {
	return genEnd(strconv.AppendInt(genStart(b, name), v, 10), name, nl)
}

// genFloat appends an element holding v with six decimals, as
// printf's %f writes it.
func genFloat(b []byte, name string, v float64, nl string) []byte {
	return genEnd(strconv.AppendFloat(genStart(b, name), v, 'f', 6, 64), name, nl)
}

// genText appends an element holding the escaped text s.
func genText(b []byte, name, s, nl string) []byte {
	return genEnd(escape(genStart(b, name), s), name, nl)
}

// genByteRefs appends s escaped, with each byte of a non-ASCII
// character written as its own numeric reference (é as &#195;&#169;).
func genByteRefs(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			b = append(strconv.AppendInt(append(b, "&#"...), int64(c), 10), ';')
		} else {
			b = escape(b, s[i:i+1])
		}
	}
	return b
}

// escaper escapes text for XML character data, for the characters a
// Host's text may hold (valid UTF-8; tab and newline the only control
// characters).
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escape(b []byte, s string) []byte {
	return append(b, escaper.Replace(s)...)
}
