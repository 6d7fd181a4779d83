package boinc

import (
	"bytes"
	"fmt"
)

// tagKind says what a tag of an export is.
type tagKind uint8

const (
	tagStart   tagKind = iota // <name ...> or <name .../>
	tagEnd                    // </name>
	tagCDATA                  // <![CDATA[...]]>
	tagComment                // a comment, processing instruction or <!...> declaration
)

// tag is one piece of markup read by readTag. Its slices point into the
// buffer.
type tag struct {
	kind  tagKind
	name  []byte // the element name of a start or end tag
	data  []byte // the contents of a CDATA section
	end   int    // the index just past the markup
	empty bool   // a start tag written <name/>
}

// describe names the tag for an error message.
func (t tag) describe() string {
	switch t.kind {
	case tagStart:
		return fmt.Sprintf("<%s>", clip(t.name))
	case tagEnd:
		return fmt.Sprintf("</%s>", clip(t.name))
	case tagCDATA:
		return "a CDATA section"
	}
	return "a comment"
}

// readTag reads the markup starting with the '<' at b[i]. It returns
// errShort if b ends inside it, and an error if it is not well-formed.
func (s *HostScanner) readTag(b []byte, i int) (tag, error) {
	if i+1 >= len(b) {
		return tag{}, errShort
	}
	switch c := b[i+1]; {
	case c == '/':
		return s.endTag(b, i)
	case c == '?':
		return s.skipTo(b, i, 2, "?>", tagComment)
	case c == '!':
		return s.bangTag(b, i)
	case isNameStart(c):
		return s.startTag(b, i)
	}
	return tag{}, s.fail(i, "malformed markup %s", quoteClip(b[i:]))
}

// startTag reads the start tag at b[i], skipping its attributes.
func (s *HostScanner) startTag(b []byte, i int) (tag, error) {
	n := i + 1
	for n < len(b) && !nameEnd[b[n]] {
		n++
	}
	for j := n; j < len(b); j++ {
		switch b[j] {
		case '>':
			return tag{kind: tagStart, name: b[i+1 : n], end: j + 1, empty: b[j-1] == '/'}, nil
		case '<':
			return tag{}, s.fail(i, "malformed start tag %s", quoteClip(b[i:j]))
		case '"', '\'':
			q := bytes.IndexByte(b[j+1:], b[j])
			if q < 0 {
				return tag{}, errShort
			}
			j += q + 1
		}
	}
	return tag{}, errShort
}

// endTag reads the end tag at b[i].
func (s *HostScanner) endTag(b []byte, i int) (tag, error) {
	n := i + 2
	if n < len(b) && !isNameStart(b[n]) {
		return tag{}, s.fail(i, "malformed end tag %s", quoteClip(b[i:]))
	}
	for n < len(b) && !isNameEnd(b[n]) {
		n++
	}
	j := skipSpace(b, n)
	switch {
	case j >= len(b):
		return tag{}, errShort
	case b[j] != '>':
		return tag{}, s.fail(i, "malformed end tag %s", quoteClip(b[i:j+1]))
	}
	return tag{kind: tagEnd, name: b[i+2 : n], end: j + 1}, nil
}

// bangTag reads the comment, CDATA section or declaration at b[i].
func (s *HostScanner) bangTag(b []byte, i int) (tag, error) {
	for _, p := range [...]string{"<!--", "<![CDATA["} {
		rest := b[i:min(len(b), i+len(p))]
		if string(rest) != p[:len(rest)] {
			continue
		}
		if len(rest) < len(p) {
			return tag{}, errShort
		}
		if p == "<!--" {
			return s.skipTo(b, i, len(p), "-->", tagComment)
		}
		t, err := s.skipTo(b, i, len(p), "]]>", tagCDATA)
		if err == nil {
			t.data = b[i+len(p) : t.end-len("]]>")]
		}
		return t, err
	}
	if i+2 < len(b) && !isNameStart(b[i+2]) {
		return tag{}, s.fail(i, "malformed markup %s", quoteClip(b[i:]))
	}
	return s.skipTo(b, i, 2, ">", tagComment)
}

// skipTo returns a tag of the given kind for the markup at b[i] that ends
// with the first delim found at least skip bytes after i.
func (s *HostScanner) skipTo(b []byte, i, skip int, delim string, kind tagKind) (tag, error) {
	if i+skip > len(b) {
		return tag{}, errShort
	}
	j := bytes.Index(b[i+skip:], []byte(delim))
	if j < 0 {
		return tag{}, errShort
	}
	return tag{kind: kind, end: i + skip + j + len(delim)}, nil
}

// plainStartTag returns the name of the start tag at b[i] and the index
// just past it if the tag has no attributes, the common case that
// deserves a fast path; otherwise it returns 0 for the index.
func plainStartTag(b []byte, i int) ([]byte, int) {
	n := i + 1
	if n >= len(b) || !isNameStart(b[n]) {
		return nil, 0
	}
	for n++; n < len(b) && !nameEnd[b[n]]; n++ {
	}
	if n >= len(b) || b[n] != '>' {
		return nil, 0
	}
	return b[i+1 : n], n + 1
}

// nameEnd marks the bytes that end an element name, as isNameEnd does.
var nameEnd = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '/': true, '>': true, '<': true}

// skipSpace returns the index of the first byte at or after i that is
// not XML white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\n', '\r', '\t':
			i++
			continue
		}
		break
	}
	return i
}

// closesAt reports whether the end tag </name> starts at b[i]: 1 if it
// does, 0 if something else does, -1 if b ends too soon to tell.
func closesAt(b []byte, i int, name []byte) int {
	j := i + 2 + len(name)
	if j >= len(b) {
		return -1
	}
	if b[i+1] != '/' || !bytes.Equal(b[i+2:j], name) || b[j] != '>' {
		return 0
	}
	return 1
}
