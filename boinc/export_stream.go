package boinc

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// errShort means that an item does not end within the buffered input.
// The item is parsed again, from its start, once more input is buffered.
var errShort = errors.New("boinc: short buffer")

// step consumes the next item of the document from the buffer: white
// space, a comment, the root tag, a whole <host> record, ... It reports
// true when the item was a record, and errShort when the buffer ends
// inside the item; s.pos then stays at the item's start.
func (s *HostScanner) step() (bool, error) {
	s.inRecord = false
	b := s.buf[:s.end]
	i := s.pos
	if s.base == 0 && i == 0 && s.state == stProlog {
		if len(b) < len(utf8BOM) && string(b) == utf8BOM[:len(b)] {
			return false, errShort
		}
		if len(b) >= len(utf8BOM) && string(b[:len(utf8BOM)]) == utf8BOM {
			i = len(utf8BOM)
		}
	}
	i = skipSpace(b, i)
	s.pos = i
	if i >= len(b) {
		return false, errShort
	}
	if b[i] != '<' {
		return false, s.textError(b, i)
	}
	t, err := s.readTag(b, i)
	if err != nil {
		return false, err
	}
	switch {
	case t.kind == tagComment:
		s.pos = t.end
		return false, nil
	case s.state == stProlog:
		return false, s.rootItem(t, i)
	case s.state == stHosts:
		return s.hostsItem(b, t, i)
	}
	return false, s.fail(i, "%s after </hosts>", t.describe())
}

// utf8BOM is the byte order mark a file may start with.
const utf8BOM = "\xef\xbb\xbf"

// rootItem checks the tag t at b[i], the first of the document.
func (s *HostScanner) rootItem(t tag, i int) error {
	switch {
	case t.kind != tagStart:
		return s.fail(i, "%s before the <hosts> element", t.describe())
	case string(t.name) != "hosts":
		return s.fail(i, "root element is <%s>, want <hosts>", clip(t.name))
	case t.empty:
		s.state = stAfter
	default:
		s.state = stHosts
	}
	s.pos = t.end
	return nil
}

// hostsItem consumes the item starting with the tag t at b[i], inside
// <hosts>: a record, an element Cobble does not know, or </hosts>.
func (s *HostScanner) hostsItem(b []byte, t tag, i int) (bool, error) {
	switch {
	case t.kind == tagStart && string(t.name) == "host":
		s.inRecord = true
		end, err := s.parseHost(b, t)
		if err != nil {
			return false, err
		}
		s.pos = end
		return true, nil
	case t.kind == tagStart:
		end, err := s.skipElement(b, t)
		if err != nil {
			return false, err
		}
		s.pos = end
		return false, nil
	case t.kind == tagEnd && string(t.name) == "hosts":
		s.state = stAfter
		s.pos = t.end
		return false, nil
	}
	return false, s.fail(i, "%s where <host> or </hosts> should be", t.describe())
}

// fill makes more input available after step returned errShort: it
// moves the unconsumed input to the front of the buffer, grows the buffer
// if the item fills it, and reads. At the end of the input it returns the
// error that explains why the item is incomplete, or nil and moves to
// stDone when the document is complete.
func (s *HostScanner) fill() error {
	if s.eof || s.rerr != nil {
		return s.endOfInput()
	}
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= s.max {
			what := "an element"
			if s.inRecord {
				what = "the record"
			}
			return s.fail(0, "%s is larger than %d bytes", what, s.max)
		}
		buf := make([]byte, min(2*len(s.buf), s.max))
		copy(buf, s.buf[:s.end])
		s.buf = buf
	}
	s.read()
	return nil
}

// read fills the free part of the buffer from the reader, stopping at
// the first error. It records io.EOF in s.eof and other errors in s.rerr.
func (s *HostScanner) read() {
	for empty := 0; s.end < len(s.buf); {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		switch {
		case err == io.EOF:
			s.eof = true
			return
		case err != nil:
			s.rerr = err
			return
		case n == 0:
			if empty++; empty >= 100 {
				s.rerr = io.ErrNoProgress
				return
			}
		}
	}
}

// endOfInput returns the error for an input that ends in the middle of
// the item at s.pos, or nil if the document is complete.
func (s *HostScanner) endOfInput() error {
	if s.rerr != nil {
		e := s.fail(s.end, "").(*ExportError)
		e.Err = s.rerr
		return e
	}
	partial := s.pos < s.end
	switch {
	case s.state == stAfter && !partial:
		s.state = stDone
		return nil
	case s.state == stProlog && s.base+int64(s.end) == 0:
		return s.fail(0, "empty input")
	case s.state == stProlog:
		return s.fail(s.end, "input ends before the <hosts> element")
	case s.inRecord:
		return s.fail(s.pos, "input ends inside the record, before </host>")
	case partial:
		return s.fail(s.end, "input ends inside markup")
	}
	return s.fail(s.end, "input ends before </hosts>")
}

// fail returns an *ExportError for the problem found at s.buf[i].
func (s *HostScanner) fail(i int, format string, args ...any) error {
	return &ExportError{
		Offset:   s.base + int64(i),
		Records:  s.count,
		InRecord: s.inRecord,
		Msg:      fmt.Sprintf(format, args...),
	}
}

// textError reports the character data at b[i], where a tag should be.
func (s *HostScanner) textError(b []byte, i int) error {
	if len(b) > i+1 && b[i] == 0x1f && b[i+1] == 0x8b {
		return s.fail(i, "the input is gzip-compressed; use NewGzipHostScanner")
	}
	return s.fail(i, "text %s where a tag should be", quoteClip(b[i:]))
}

// clip shortens b for an error message.
func clip(b []byte) []byte {
	const n = 40
	if len(b) > n {
		return b[:n]
	}
	return b
}

// quoteClip quotes the start of b for an error message.
func quoteClip(b []byte) string {
	q := strconv.Quote(string(clip(b)))
	if len(b) > len(clip(b)) {
		q += "..."
	}
	return q
}
