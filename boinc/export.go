package boinc

import (
	"errors"
	"fmt"
	"io"
)

// ErrBadExport is wrapped by every error that reports a problem in the
// data of a project credit export: malformed markup, a wrong root
// element, a record without an id, a value that is not a number, or a
// file that ends too early. See [ExportError].
var ErrBadExport = errors.New("boinc: bad credit export")

// ExportError says what is wrong with a host export and where.
//
// An ExportError with a nil Err reports a problem in the data; it wraps
// [ErrBadExport]. One with Err set reports the read error (from gzip, the
// network, ...) that stopped the scan, and wraps that error instead: a
// truncated gzip stream gives [io.ErrUnexpectedEOF] there.
type ExportError struct {
	// Offset is the byte offset in the uncompressed stream at which the
	// problem was found (for a record that ends too early or is too
	// large: where its <host> tag starts).
	Offset int64
	// Records is the number of complete <host> records before the problem.
	Records int64
	// InRecord reports a problem inside record number Records+1.
	InRecord bool
	// Msg says what was wrong.
	Msg string
	// Err is the read error that stopped the scan, if any.
	Err error
}

// Error describes the problem with its position.
func (e *ExportError) Error() string {
	where := fmt.Sprintf("byte %d, after record %d", e.Offset, e.Records)
	if e.InRecord {
		where = fmt.Sprintf("record %d, byte %d", e.Records+1, e.Offset)
	}
	if e.Err != nil {
		return fmt.Sprintf("boinc: reading host export: %s: %v", where, e.Err)
	}
	return fmt.Sprintf("%v: %s: %s", ErrBadExport, where, e.Msg)
}

// Unwrap returns Err if it is set and ErrBadExport otherwise.
func (e *ExportError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return ErrBadExport
}

// ExportHost is one <host> of a project's host export, with the fields
// Cobble uses. Elements missing from the record leave their fields at the
// zero value; only <id> is required.
//
// Text fields are entity-decoded; bytes that are not valid UTF-8 are read
// as ISO-8859-1, the encoding the files declare (their bytes are normally
// UTF-8 whatever the declaration says).
type ExportHost struct {
	ID           int64   // <id>: the project's host id, the join key with the client's <hostid>
	UserID       int64   // <userid>; 0 when absent (the owner hides hosts)
	HasUserID    bool    // whether <userid> was present
	TotalCredit  float64 // <total_credit>
	ExpavgCredit float64 // <expavg_credit> (RAC at ExpavgTime)
	ExpavgTime   float64 // <expavg_time>, Unix seconds
	HostCPID     string  // <host_cpid> as exported: md5 of the client's cpid and the owner's email
	CreateTime   int64   // <create_time>, Unix seconds
	RPCTime      int64   // <rpc_time>, Unix seconds
	NCPUs        int     // <ncpus>
	PFPOps       float64 // <p_fpops>, floating-point operations per second per CPU
	OSName       string  // <os_name>
	PModel       string  // <p_model>
}

// Default limits of a [HostScanner].
const (
	exportBufSize = 256 << 10 // bytes read ahead from the stream
	exportMaxItem = 1 << 20   // the largest record or element accepted
)

// scanState is where a HostScanner is in the document.
type scanState uint8

const (
	stProlog scanState = iota // before the <hosts> root
	stHosts                   // inside <hosts>
	stAfter                   // after </hosts>
	stDone                    // clean end of the stream
)

// HostScanner reads the <host> records of a project's host export
// (BOINC's db_dump host file) one at a time from an uncompressed stream,
// in bounded memory whatever the size of the stream.
//
// It reads through a 256 KiB buffer, which grows for a larger record; a
// single record or element larger than 1 MiB is an error. It ignores the
// encoding the XML declaration names (the bytes are taken as UTF-8),
// comments, processing instructions, white space between elements, and
// elements it does not know, inside <hosts> or at any depth inside a
// record, as long as they are well-formed. The order of the elements in a
// record does not matter. It rejects anything else that is not
// well-formed, a root other than <hosts>, a <host> inside a <host>, a
// record without <id>, numbers it cannot parse, and a stream that ends
// before </hosts>.
//
// To filter millions of records cheaply, look at [HostScanner.ID] and
// [HostScanner.UserID] first and call [HostScanner.Host] only for the
// records you keep: Next decodes the text fields into a reused buffer and
// Host turns them into strings.
//
// A HostScanner is not safe for concurrent use.
type HostScanner struct {
	r     io.Reader
	ahead *readAhead // the gzip decompressor of NewGzipHostScanner
	buf   []byte     // buf[pos:end] is read but not yet consumed
	pos   int
	end   int
	base  int64 // stream offset of buf[0]
	max   int   // the size of the largest item, and so of the buffer
	eof   bool  // r returned io.EOF
	rerr  error // r returned this error
	state scanState
	err   error
	count int64

	inRecord bool // the unfinished item is a <host> record
	hasID    bool
	filled   bool // Host has made the strings of the current record
	host     ExportHost
	text     []byte      // decoded text fields of the current record
	spans    [3]span     // where each text field lies in text
	scratch  []byte      // element text assembled around CDATA or comments
	stack    [][]byte    // names of the open elements being skipped
	strs     stringCache // interned OSName and PModel values
}

// NewHostScanner returns a scanner that reads an uncompressed host export
// from r. Errors are reported by [HostScanner.Err].
func NewHostScanner(r io.Reader) *HostScanner {
	return newHostScanner(r, exportBufSize, exportMaxItem)
}

// newHostScanner returns a scanner that starts with a buffer of size bytes
// and accepts items up to maxItem bytes. Tests make both small.
func newHostScanner(r io.Reader, size, maxItem int) *HostScanner {
	return &HostScanner{r: r, buf: make([]byte, min(size, maxItem)), max: maxItem}
}

// Next advances to the next record and reports whether there is one. It
// returns false at the end of the export or on the first error; Err then
// tells which.
func (s *HostScanner) Next() bool {
	for s.err == nil && s.state != stDone {
		ok, err := s.step()
		switch {
		case err == errShort:
			s.err = s.fill()
		case err != nil:
			s.err = err
		case ok:
			s.count++
			return true
		}
	}
	return false
}

// Host returns the current record: the one found by the last call to
// Next that returned true. The ExportHost is reused: its contents change
// with the next call to Next, but its strings may be kept. Host allocates
// a string for HostCPID; OSName and PModel values are shared between
// records with the same text. Before Next has returned true the result is
// the zero ExportHost; after it has returned false the contents are
// unspecified.
func (s *HostScanner) Host() *ExportHost {
	if !s.filled {
		h := &s.host
		h.HostCPID = textString(s.spanText(0))
		h.OSName = s.strs.get(s.spanText(1))
		h.PModel = s.strs.get(s.spanText(2))
		s.filled = true
	}
	return &s.host
}

// ID returns the current record's <id>, like Host().ID but without
// making its strings.
func (s *HostScanner) ID() int64 {
	return s.host.ID
}

// UserID returns the current record's <userid> and whether it had one,
// like Host().UserID and Host().HasUserID but without making its strings.
func (s *HostScanner) UserID() (id int64, ok bool) {
	return s.host.UserID, s.host.HasUserID
}

// Err returns the error that stopped the scan, or nil if Next has not
// returned false or the export was read cleanly to its end. Problems in
// the data are [*ExportError] values wrapping [ErrBadExport]; read errors
// are [*ExportError] values wrapping the error of the reader. After a
// Close that ended the scan early, Err reports that the scanner was
// closed.
func (s *HostScanner) Err() error {
	return s.err
}

// Count returns the number of records read so far: how many times Next
// has returned true.
func (s *HostScanner) Count() int64 {
	return s.count
}
