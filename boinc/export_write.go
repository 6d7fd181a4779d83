package boinc

import (
	"fmt"
	"io"
	"strconv"
)

// Writing exports in the layout of BOINC's db_dump (sched/db_dump.cpp),
// for an account manager's own statistics: a root element (<users>,
// <teams>, <hosts>) holding one record a listed volunteer, team or
// computer, each with db_dump's elements in db_dump's order, and
// tables.xml beside them. Text is escaped for XML and written as UTF-8,
// which the declaration names.

// UserRecord is one <user> of a user export.
type UserRecord struct {
	ID           int64
	Name         string
	CreateTime   int64   // Unix seconds
	TotalMicro   int64   // total credit in millionths: written exactly
	ExpavgCredit float64 // recent average credit per day, as of ExpavgTime
	ExpavgTime   float64 // Unix seconds
	CPID         string  // the cross-project id, 32 hex digits
	TeamID       int64   // 0: no <teamid>
}

// TeamRecord is one <team> of a team export.
type TeamRecord struct {
	ID           int64
	Type         int // BOINC's team type, 1–7
	Name         string
	UserID       int64 // the founder's id in the user export; 0 when not listed
	TotalMicro   int64
	ExpavgCredit float64
	ExpavgTime   float64
	FounderName  string // "": no <founder_name>
	CreateTime   int64
	URL          string // "": no <url>
	Description  string // "": no <description>
	Country      string
}

// HostRecord is one <host> of a host export, with db_dump's detail.
type HostRecord struct {
	ID           int64
	UserID       int64 // 0: no <userid>
	TotalCredit  float64
	ExpavgCredit float64
	ExpavgTime   float64
	PVendor      string
	PModel       string
	OSName       string
	OSVersion    string
	BOINCVersion string // "": no <boinc_version>
	CreateTime   int64
	RPCTime      int64
	NCPUs        int
	PFPOps       float64
	MNBytes      float64
	HostCPID     string
}

// exportDeclaration starts every export file.
const exportDeclaration = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// ExportWriter writes one export file: the declaration and the root
// element, then its records, then, on Close, the end of the root. It
// buffers up to 64 KiB; the first error of the underlying writer is
// returned by every later call.
type ExportWriter struct {
	w    io.Writer
	root string
	buf  []byte
	err  error
}

// exportFlushAt is how much an ExportWriter buffers before writing.
const exportFlushAt = 64 << 10

// NewExportWriter starts an export whose root element is root ("users",
// "teams" or "hosts").
func NewExportWriter(w io.Writer, root string) *ExportWriter {
	e := &ExportWriter{w: w, root: root, buf: make([]byte, 0, exportFlushAt+4096)}
	e.buf = append(e.buf, exportDeclaration...)
	e.buf = append(e.buf, "<"+root+">\n"...)
	return e
}

// User writes a <user> record, in the order of db_dump's write_user.
func (e *ExportWriter) User(u *UserRecord) error {
	b := append(e.buf, "<user>\n"...)
	b = intElem(b, " ", "id", u.ID)
	b = textElem(b, " ", "name", u.Name)
	b = intElem(b, " ", "create_time", u.CreateTime)
	b = microElem(b, " ", "total_credit", u.TotalMicro)
	b = floatElem(b, " ", "expavg_credit", u.ExpavgCredit)
	b = floatElem(b, " ", "expavg_time", u.ExpavgTime)
	b = textElem(b, " ", "cpid", u.CPID)
	if u.TeamID != 0 {
		b = intElem(b, " ", "teamid", u.TeamID)
	}
	return e.record(append(b, "</user>\n"...))
}

// Team writes a <team> record, in the order of db_dump's write_team.
func (e *ExportWriter) Team(t *TeamRecord) error {
	b := append(e.buf, "<team>\n"...)
	b = intElem(b, " ", "id", t.ID)
	b = intElem(b, " ", "type", int64(t.Type))
	b = textElem(b, " ", "name", t.Name)
	b = intElem(b, " ", "userid", t.UserID)
	b = microElem(b, " ", "total_credit", t.TotalMicro)
	b = floatElem(b, " ", "expavg_credit", t.ExpavgCredit)
	b = floatElem(b, " ", "expavg_time", t.ExpavgTime)
	if t.FounderName != "" {
		b = textElem(b, "  ", "founder_name", t.FounderName)
	}
	b = intElem(b, " ", "create_time", t.CreateTime)
	if t.URL != "" {
		b = textElem(b, " ", "url", t.URL)
	}
	if t.Description != "" {
		b = textElem(b, "", "description", t.Description)
	}
	b = textElem(b, " ", "country", t.Country)
	return e.record(append(b, "</team>\n"...))
}

// Host writes a <host> record, in the order of db_dump's write_host with
// its detail. The figures Cobble does not keep (time zone, memory
// bandwidth, disk, network, turnaround) are written as 0.
func (e *ExportWriter) Host(h *HostRecord) error {
	b := append(e.buf, "<host>\n"...)
	b = intElem(b, "    ", "id", h.ID)
	if h.UserID != 0 {
		b = intElem(b, "    ", "userid", h.UserID)
	}
	b = floatElem(b, "    ", "total_credit", h.TotalCredit)
	b = floatElem(b, "    ", "expavg_credit", h.ExpavgCredit)
	b = floatElem(b, "    ", "expavg_time", h.ExpavgTime)
	b = textElem(b, "    ", "p_vendor", h.PVendor)
	b = textElem(b, "    ", "p_model", h.PModel)
	b = textElem(b, "    ", "os_name", h.OSName)
	b = textElem(b, "    ", "os_version", h.OSVersion)
	if h.BOINCVersion != "" {
		b = textElem(b, "    ", "boinc_version", h.BOINCVersion)
	}
	b = intElem(b, "  ", "create_time", h.CreateTime)
	b = intElem(b, "  ", "rpc_time", h.RPCTime)
	b = intElem(b, "  ", "timezone", 0)
	b = intElem(b, "  ", "ncpus", int64(h.NCPUs))
	b = floatElem(b, "  ", "p_fpops", h.PFPOps)
	for _, name := range []string{"p_iops", "p_membw"} {
		b = floatElem(b, "  ", name, 0)
	}
	b = floatElem(b, "  ", "m_nbytes", h.MNBytes)
	for _, name := range []string{"m_cache", "m_swap", "d_total", "d_free", "n_bwup", "n_bwdown",
		"avg_turnaround", "credit_per_cpu_sec"} {
		b = floatElem(b, "  ", name, 0)
	}
	b = textElem(b, "  ", "host_cpid", h.HostCPID)
	return e.record(append(b, "</host>\n"...))
}

// record keeps the buffer b, which ends with a whole record, and writes
// it out once it is large.
func (e *ExportWriter) record(b []byte) error {
	e.buf = b
	if e.err == nil && len(e.buf) >= exportFlushAt {
		e.flush()
	}
	return e.err
}

// flush writes the buffer out.
func (e *ExportWriter) flush() {
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// Close ends the root element and writes what is buffered. It does not
// close the underlying writer.
func (e *ExportWriter) Close() error {
	e.buf = append(e.buf, "</"+e.root+">\n"...)
	e.flush()
	return e.err
}

// WriteTables writes t as tables.xml, in the order of db_dump's
// tables_file; like db_dump it leaves out counts and a total that are
// zero.
func WriteTables(w io.Writer, t ExportTables) error {
	b := append([]byte(exportDeclaration), "<tables>\n"...)
	b = intElem(b, "    ", "update_time", t.UpdateTime)
	for _, c := range []struct {
		name string
		n    int64
	}{{"nusers_total", t.NUsersTotal}, {"nteams_total", t.NTeamsTotal}, {"nhosts_total", t.NHostsTotal}} {
		if c.n != 0 {
			b = intElem(b, "    ", c.name, c.n)
		}
	}
	if t.TotalCredit != 0 {
		b = floatElem(b, "    ", "total_credit", t.TotalCredit)
	}
	b = append(b, "</tables>\n"...)
	_, err := w.Write(b)
	return err
}

// intElem appends <name>n</name> on a line of its own.
func intElem(b []byte, indent, name string, n int64) []byte {
	b = append(append(append(b, indent...), '<'), name...)
	b = strconv.AppendInt(append(b, '>'), n, 10)
	return append(append(append(b, "</"...), name...), ">\n"...)
}

// floatElem appends <name>v</name> as C's %f writes v: six decimals.
func floatElem(b []byte, indent, name string, v float64) []byte {
	b = append(append(append(b, indent...), '<'), name...)
	b = strconv.AppendFloat(append(b, '>'), v, 'f', 6, 64)
	return append(append(append(b, "</"...), name...), ">\n"...)
}

// microElem appends <name>v</name> for v millionths, exactly, with six
// decimals as %f writes them.
func microElem(b []byte, indent, name string, v int64) []byte {
	b = append(append(append(b, indent...), '<'), name...)
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	b = fmt.Appendf(append(b, '>'), "%s%d.%06d", sign, v/1e6, v%1e6)
	return append(append(append(b, "</"...), name...), ">\n"...)
}

// textElem appends <name>s</name> with s escaped.
func textElem(b []byte, indent, name, s string) []byte {
	b = append(append(append(b, indent...), '<'), name...)
	b = appendEscaped(append(b, '>'), s)
	return append(append(append(b, "</"...), name...), ">\n"...)
}
