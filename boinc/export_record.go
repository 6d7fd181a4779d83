package boinc

import (
	"bytes"
	"errors"
)

// maxSkipDepth bounds the nesting of the elements skipped inside a record.
const maxSkipDepth = 64

// errNotSimple means that an element is not plain text followed by its
// end tag, so that it needs the slow path.
var errNotSimple = errors.New("boinc: not a simple element")

// parseHost parses the record that starts with the <host> tag t. It
// returns the index just past its </host>.
func (s *HostScanner) parseHost(b []byte, t tag) (int, error) {
	s.host, s.hasID, s.filled, s.text = ExportHost{}, false, false, s.text[:0]
	s.spans = [3]span{}
	if t.empty {
		return 0, s.fail(s.pos, "record has no <id>")
	}
	for i := t.end; ; {
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, errShort
		}
		if b[i] != '<' {
			return 0, s.textError(b, i)
		}
		next, err := s.plainChild(b, i)
		done := false
		if err == errNotSimple {
			next, done, err = s.recordMarkup(b, i)
		}
		if err != nil || done {
			return next, err
		}
		i = next
	}
}

// recordMarkup consumes the markup at b[i] inside a record, where the
// fast path of plainChild does not apply, and returns the index just past
// it. It reports done at </host>.
func (s *HostScanner) recordMarkup(b []byte, i int) (next int, done bool, err error) {
	c, err := s.readTag(b, i)
	switch {
	case err != nil:
		return 0, false, err
	case c.kind == tagStart:
		next, err = s.child(b, c, i)
		return next, false, err
	case c.kind == tagComment:
		return c.end, false, nil
	case c.kind == tagEnd && string(c.name) == "host":
		if !s.hasID {
			return 0, false, s.fail(s.pos, "record has no <id>")
		}
		return c.end, true, nil
	}
	return 0, false, s.fail(i, "%s inside <host>", c.describe())
}

// plainChild is the fast path of parseHost for the common child element
// of <host>: <name>text</name>, without attributes, comments or CDATA.
// It consumes the element at b[i] and returns the index just past it, or
// errNotSimple for another kind of markup, left to the slow path.
func (s *HostScanner) plainChild(b []byte, i int) (int, error) {
	name, end := plainStartTag(b, i)
	if end == 0 {
		return 0, errNotSimple
	}
	k := bytes.IndexByte(b[end:], '<')
	if k < 0 {
		return 0, errShort
	}
	k += end
	switch closesAt(b, k, name) {
	case -1:
		return 0, errShort
	case 0:
		return 0, errNotSimple
	}
	next := k + len(name) + 3
	f := lookupField(name)
	switch {
	case f != fieldNone:
		return next, s.setField(f, b[end:k], false, i)
	case string(name) == "host":
		return 0, errNotSimple
	}
	return next, nil
}

// child consumes the child element of <host> that starts with the tag t
// at b[i] and returns the index just past it.
func (s *HostScanner) child(b []byte, t tag, i int) (int, error) {
	f := lookupField(t.name)
	if f == fieldNone {
		if string(t.name) == "host" {
			return 0, s.fail(i, "<host> inside <host>: the record is not closed")
		}
		return s.skipElement(b, t)
	}
	var text []byte
	decoded, next := false, t.end
	if !t.empty {
		var err error
		text, next, err = s.simpleText(b, t)
		if err == errNotSimple {
			text, next, err = s.collectText(b, t)
			decoded = true
		}
		if err != nil {
			return 0, err
		}
	}
	return next, s.setField(f, text, decoded, i)
}

// simpleText returns the raw text of the element whose start tag is t,
// when an end tag follows it directly, and the index past that end tag.
func (s *HostScanner) simpleText(b []byte, t tag) ([]byte, int, error) {
	k := bytes.IndexByte(b[t.end:], '<')
	if k < 0 {
		return nil, 0, errShort
	}
	k += t.end
	switch closesAt(b, k, t.name) {
	case -1:
		return nil, 0, errShort
	case 0:
		return nil, 0, errNotSimple
	}
	return b[t.end:k], k + len(t.name) + 3, nil
}

// collectText returns the decoded text of the element whose start tag
// is t, made of character data, CDATA sections and comments, and the
// index past its end tag. A child element is an error.
func (s *HostScanner) collectText(b []byte, t tag) ([]byte, int, error) {
	s.scratch = s.scratch[:0]
	for j := t.end; ; {
		k := bytes.IndexByte(b[j:], '<')
		if k < 0 {
			return nil, 0, errShort
		}
		s.scratch = AppendUnescaped(s.scratch, b[j:j+k])
		j += k
		c, err := s.readTag(b, j)
		switch {
		case err != nil:
			return nil, 0, err
		case c.kind == tagCDATA:
			s.scratch = append(s.scratch, c.data...)
		case c.kind == tagEnd && bytes.Equal(c.name, t.name):
			return s.scratch, c.end, nil
		case c.kind != tagComment:
			return nil, 0, s.fail(j, "%s inside <%s>", c.describe(), clip(t.name))
		}
		j = c.end
	}
}

// skipElement skips the element whose start tag is t, with everything
// inside it, and returns the index past its end tag. The end tags must
// match the start tags, and no <host> may occur inside.
func (s *HostScanner) skipElement(b []byte, t tag) (int, error) {
	if t.empty {
		return t.end, nil
	}
	if _, next, err := s.simpleText(b, t); err != errNotSimple {
		return next, err
	}
	s.stack = append(s.stack[:0], t.name)
	for j := t.end; ; {
		k := bytes.IndexByte(b[j:], '<')
		if k < 0 {
			return 0, errShort
		}
		j += k
		c, err := s.readTag(b, j)
		switch {
		case err != nil:
			return 0, err
		case c.kind == tagStart && string(c.name) == "host":
			return 0, s.fail(j, "<host> inside <%s>", clip(s.stack[len(s.stack)-1]))
		case c.kind == tagStart && !c.empty:
			if len(s.stack) == maxSkipDepth {
				return 0, s.fail(j, "elements nested more than %d deep", maxSkipDepth)
			}
			s.stack = append(s.stack, c.name)
		case c.kind == tagEnd:
			open := s.stack[len(s.stack)-1]
			if !bytes.Equal(c.name, open) {
				return 0, s.fail(j, "</%s> closes <%s>", clip(c.name), clip(open))
			}
			if s.stack = s.stack[:len(s.stack)-1]; len(s.stack) == 0 {
				return c.end, nil
			}
		}
		j = c.end
	}
}
