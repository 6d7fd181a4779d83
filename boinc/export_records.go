package boinc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// ExportField is one child element of an export record: its name and its
// entity-decoded text.
type ExportField struct {
	Name string
	Text string
}

// ExportRecord is a record of an export (a <user>, <team> or <host>):
// its child elements in the order they were written.
type ExportRecord []ExportField

// Get returns the text of the record's first element called name, and
// whether there was one.
func (r ExportRecord) Get(name string) (string, bool) {
	for _, f := range r {
		if f.Name == name {
			return f.Text, true
		}
	}
	return "", false
}

// Names returns the record's element names in order.
func (r ExportRecord) Names() []string {
	names := make([]string, len(r))
	for i, f := range r {
		names[i] = f.Name
	}
	return names
}

// RecordScanner reads the records of any of db_dump's export files (a
// user, team or host export, whatever the root) as lists of elements, in
// bounded memory: a record at most 1 MiB. It is [HostScanner]'s plain
// sibling for the files Cobble reads whole, such as its own user and team
// exports: it keeps every element, in order, and no numbers are parsed.
// Nested elements inside a record's child are taken as the child's text.
//
// A RecordScanner is not safe for concurrent use.
type RecordScanner struct {
	r       io.Reader
	root    string
	end     []byte // the record's end tag
	buf     []byte
	eof     bool
	started bool // the root's start tag was read
	rec     ExportRecord
	err     error
}

// NewRecordScanner returns a scanner of the records called record inside
// the root element root of an uncompressed export read from r.
func NewRecordScanner(r io.Reader, root, record string) *RecordScanner {
	return &RecordScanner{r: r, root: root, end: []byte("</" + record + ">")}
}

// NewGzipRecordScanner is [NewRecordScanner] for a gzip-compressed file.
// It fails, wrapping [ErrBadExport], if r does not start with a gzip
// header.
func NewGzipRecordScanner(r io.Reader, root, record string) (*RecordScanner, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: not a gzip stream: %w", ErrBadExport, err)
	}
	return NewRecordScanner(zr, root, record), nil
}

// Next advances to the next record and reports whether there is one; at
// the end of the file or on an error it returns false, and Err says which.
func (s *RecordScanner) Next() bool {
	for s.err == nil {
		if i := bytes.Index(s.buf, s.end); i >= 0 {
			s.err = s.parse(s.buf[:i+len(s.end)])
			s.buf = s.buf[i+len(s.end):]
			return s.err == nil
		}
		if s.eof {
			s.err = s.finish()
			return false
		}
		s.read()
	}
	return false
}

// Record returns the current record; its contents change with Next.
func (s *RecordScanner) Record() ExportRecord { return s.rec }

// Err returns the error that ended the scan, or nil after a clean end.
func (s *RecordScanner) Err() error {
	if errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// maxRecord bounds a record of a RecordScanner.
const maxRecord = 1 << 20

// read appends more input to the buffer.
func (s *RecordScanner) read() {
	if len(s.buf) > maxRecord {
		s.err = fmt.Errorf("%w: a record is larger than %d bytes", ErrBadExport, maxRecord)
		return
	}
	chunk := make([]byte, 64<<10)
	n, err := io.ReadFull(s.r, chunk)
	s.buf = append(s.buf, chunk[:n]...)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		s.eof = true
	case err != nil:
		s.err = fmt.Errorf("boinc: reading export: %w", err)
	}
}

// parse reads one record from b, which ends with its end tag; before the
// record there may be the prolog and the root's start tag.
func (s *RecordScanner) parse(b []byte) error {
	sc := newXMLScanner(b)
	s.rec = s.rec[:0]
	depth := 0
	var name string
	var text []byte
	for sc.advance() {
		t := sc.tok
		switch {
		case t.Kind == tokText && depth < 2 && len(trimSpace(t.Data)) > 0:
			return fmt.Errorf("%w: text %s outside an element", ErrBadExport, quoteClip(t.Data))
		case t.Kind == tokStart && !s.started:
			if string(t.Name) != s.root {
				return fmt.Errorf("%w: root element is <%s>, want <%s>", ErrBadExport, clip(t.Name), s.root)
			}
			s.started = true
		case t.Kind == tokStart && depth == 1 && t.SelfClosing:
			s.rec = append(s.rec, ExportField{Name: string(t.Name)})
		case t.Kind == tokStart && !t.SelfClosing:
			if depth++; depth == 2 {
				name, text = string(t.Name), text[:0]
			}
		case t.Kind == tokText && depth >= 2:
			text = t.AppendText(text)
		case t.Kind == tokEnd:
			if depth--; depth == 1 {
				s.rec = append(s.rec, ExportField{Name: name, Text: string(text)})
			}
		}
	}
	if depth != 0 {
		return fmt.Errorf("%w: a record's elements do not close", ErrBadExport)
	}
	return nil
}

// finish checks what is left at the end of the input: the root's end tag.
func (s *RecordScanner) finish() error {
	rest := trimSpace(s.buf)
	if !s.started && !bytes.Contains(rest, []byte("<"+s.root)) {
		return fmt.Errorf("%w: no <%s> element", ErrBadExport, s.root)
	}
	if !bytes.HasSuffix(rest, []byte("</"+s.root+">")) {
		return fmt.Errorf("%w: input ends before </%s>", ErrBadExport, s.root)
	}
	return io.EOF
}
