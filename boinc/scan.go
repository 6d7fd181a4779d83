package boinc

import "bytes"

// tokenKind says what a xmlToken is.
type tokenKind uint8

// The kinds of token a xmlScanner returns.
const (
	// tokEOF marks the end of the input. It is the zero Kind.
	tokEOF tokenKind = iota
	// tokStart is an element's start tag, <name ...> or <name .../>.
	tokStart
	// tokEnd is an element's end tag, </name>.
	tokEnd
	// tokText is character data between tags, or the contents of a CDATA
	// section.
	tokText
)

// String returns the name of the kind, for messages and tests.
func (k tokenKind) String() string {
	switch k {
	case tokEOF:
		return "EOF"
	case tokStart:
		return "StartTag"
	case tokEnd:
		return "EndTag"
	case tokText:
		return "Text"
	}
	return "Kind(?)"
}

// xmlToken is one piece of scanned input. Its byte slices point into the
// scanner's input; they stay valid as long as the input does and must not
// be modified.
type xmlToken struct {
	Kind tokenKind
	// Name is the element name of a tokStart or tokEnd, without any
	// namespace processing. It is never empty for those kinds.
	Name []byte
	// Data is the raw, still escaped text of a tokText token, or the literal
	// contents of a CDATA section. It is never empty for tokText tokens.
	Data []byte
	// SelfClosing reports a tokStart written <name/>. The scanner returns
	// no separate tokEnd for it.
	SelfClosing bool
	// CDATA reports a tokText token that came from a CDATA section; its Data
	// must not be entity-decoded.
	CDATA bool
}

// AppendText appends the token's text to dst and returns the extended
// slice: CDATA contents literally, other text decoded by
// [AppendUnescaped]. It appends nothing for tokens other than tokText.
func (t xmlToken) AppendText(dst []byte) []byte {
	if t.Kind != tokText {
		return dst
	}
	if t.CDATA {
		return append(dst, t.Data...)
	}
	return AppendUnescaped(dst, t.Data)
}

// xmlScanner is a lenient pull tokenizer for XML-like text held in memory.
//
// It returns start tags (attributes are skipped, not reported), end tags
// and text, and silently skips processing instructions (<?...?>),
// comments (<!--...-->) and declarations such as <!DOCTYPE ...>. It does
// not check nesting, does not require a single root and never fails: a
// '<' that does not begin well-formed markup (for example "a < b", or a
// tag with no '>' before the next '<') is returned as text, and a comment,
// CDATA section or processing instruction that is not terminated runs to
// the end of the input. Consecutive tokText tokens may occur; a consumer that
// wants an element's text concatenates them.
//
// The scanner does not allocate: tokens are sub-slices of the input.
// The zero xmlScanner scans an empty input; use newXMLScanner or Reset.
type xmlScanner struct {
	b   []byte
	pos int
	tok xmlToken // the token being returned
}

// newXMLScanner returns a scanner positioned at the start of b.
// The scanner never modifies b.
func newXMLScanner(b []byte) *xmlScanner {
	return &xmlScanner{b: b}
}

// Reset makes the scanner scan b from its start, so that it can be reused.
func (s *xmlScanner) Reset(b []byte) {
	s.b, s.pos, s.tok = b, 0, xmlToken{}
}

// Offset returns the position in the input just past the last token
// returned (or skipped): where the next call to Next starts looking.
func (s *xmlScanner) Offset() int {
	return s.pos
}

// RawUntil looks for the literal delim from the current offset on. If it
// is found, RawUntil returns the raw input before it, moves the offset
// just past it and reports true. Otherwise it returns nil and false and
// leaves the offset alone. It lets a consumer take an element's contents
// verbatim, or skip a block that may not be well-formed, by searching for
// its end tag.
func (s *xmlScanner) RawUntil(delim string) ([]byte, bool) {
	rest := s.b[s.pos:]
	i := bytes.Index(rest, []byte(delim))
	if i < 0 {
		return nil, false
	}
	s.pos += i + len(delim)
	return rest[:i], true
}

// Next returns the next token, or a token of kind tokEOF at the end of the
// input (and on every call after that).
func (s *xmlScanner) Next() xmlToken {
	if s.advance() {
		return s.tok
	}
	return xmlToken{}
}

// advance scans the next token into s.tok and reports whether there was
// one. The parsers in this package use it to read tokens without copying.
func (s *xmlScanner) advance() bool {
	for s.pos < len(s.b) {
		if !s.markupAt(s.pos) {
			s.text(s.pos + 1)
			return true
		}
		if s.markup() {
			return true
		}
	}
	s.tok = xmlToken{}
	return false
}

// markupAt reports whether b[i] is a '<' that may begin markup: one
// followed by '!', '?', a name start character, or '/' and a name start.
func (s *xmlScanner) markupAt(i int) bool {
	b := s.b
	if b[i] != '<' || i+1 >= len(b) {
		return false
	}
	switch c := b[i+1]; {
	case c == '!' || c == '?' || isNameStart(c):
		return true
	case c == '/':
		return i+2 < len(b) && isNameStart(b[i+2])
	}
	return false
}

// text sets the token to the text from the current offset up to the next
// possible markup at or after from.
func (s *xmlScanner) text(from int) {
	start, i := s.pos, from
	for {
		j := bytes.IndexByte(s.b[i:], '<')
		if j < 0 {
			i = len(s.b)
			break
		}
		i += j
		if s.markupAt(i) {
			break
		}
		i++
	}
	s.pos = i
	s.tok = xmlToken{Kind: tokText, Data: s.b[start:i]}
}

// markup consumes the markup at the current offset and sets the token.
// It reports false when the markup is skipped (comments, processing
// instructions, declarations, empty CDATA sections).
func (s *xmlScanner) markup() bool {
	rest := s.b[s.pos:]
	switch rest[1] {
	case '?':
		s.skipPast(2, "?>")
		return false
	case '!':
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			s.skipPast(4, "-->")
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			return s.cdata()
		default:
			s.skipDecl()
		}
		return false
	}
	s.tag()
	return true
}

// skipPast moves the offset past the first delim found at least skip bytes
// after the current offset, or to the end of the input.
func (s *xmlScanner) skipPast(skip int, delim string) {
	i := bytes.Index(s.b[s.pos+skip:], []byte(delim))
	if i < 0 {
		s.pos = len(s.b)
		return
	}
	s.pos += skip + i + len(delim)
}

// skipDecl skips a <!...> declaration, including a bracketed internal
// subset such as <!DOCTYPE x [ <!ENTITY ...> ]>.
func (s *xmlScanner) skipDecl() {
	for i := s.pos + 2; i < len(s.b); i++ {
		switch s.b[i] {
		case '>':
			s.pos = i + 1
			return
		case '[':
			s.pos = i
			s.skipPast(1, "]")
			i = s.pos - 1
		}
	}
	s.pos = len(s.b)
}

// cdata consumes the CDATA section at the current offset and sets the
// token to its contents. It reports false for an empty section, which
// yields no token.
func (s *xmlScanner) cdata() bool {
	start := s.pos + len("<![CDATA[")
	end := len(s.b)
	if i := bytes.Index(s.b[start:], []byte("]]>")); i >= 0 {
		end = start + i
		s.pos = end + len("]]>")
	} else {
		s.pos = end
	}
	if end == start {
		return false
	}
	s.tok = xmlToken{Kind: tokText, Data: s.b[start:end], CDATA: true}
	return true
}

// tag sets the token to the start or end tag at the current offset, or
// to text beginning with the '<' when no '>' closes the tag before the
// next '<' or the end.
func (s *xmlScanner) tag() {
	b := s.b
	kind, i := tokStart, s.pos+1
	if b[i] == '/' {
		kind, i = tokEnd, i+1
	}
	n := i
	for n < len(b) && !isNameEnd(b[n]) {
		n++
	}
	gt := n
	for gt < len(b) && b[gt] != '>' && b[gt] != '<' {
		gt++
	}
	if gt == len(b) || b[gt] == '<' {
		s.text(s.pos + 1)
		return
	}
	s.tok = xmlToken{Kind: kind, Name: b[i:n], SelfClosing: kind == tokStart && b[gt-1] == '/' && gt-1 >= n}
	s.pos = gt + 1
}

// isNameStart reports whether c may begin an element name. Bytes of
// multi-byte UTF-8 sequences are accepted without further checks.
func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80
}

// isNameEnd reports whether c ends an element name.
func isNameEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '/', '>', '<':
		return true
	}
	return false
}
