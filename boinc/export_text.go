package boinc

import "unicode/utf8"

// span locates a decoded text field in HostScanner.text.
type span struct{ start, end int }

// spanText returns text field number i of the current record.
func (s *HostScanner) spanText(i int) []byte {
	sp := s.spans[i]
	return s.text[sp.start:sp.end]
}

// Limits of a stringCache: it keeps at most this many strings of at most
// this many bytes, so that it stays under about a megabyte.
const (
	maxCachedStrings = 4096
	maxCachedLen     = 200
)

// stringCache interns the text of fields that take few distinct values
// over an export, such as OS and CPU names, so that records share them.
// The zero value is ready to use.
type stringCache struct {
	m map[string]string
}

// get returns textString(b), from the cache if b was seen before.
func (c *stringCache) get(b []byte) string {
	if v, ok := c.m[string(b)]; ok {
		return v
	}
	v := textString(b)
	if len(b) > maxCachedLen || len(c.m) >= maxCachedStrings {
		return v
	}
	if c.m == nil {
		c.m = make(map[string]string)
	}
	key := v
	if v != string(b) {
		key = string(b)
	}
	c.m[key] = v
	return v
}

// textString returns b as a string. Bytes that are not part of valid
// UTF-8 are taken as ISO-8859-1 characters, so that the result is always
// valid UTF-8.
func textString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			r = rune(b[0])
		}
		out = utf8.AppendRune(out, r)
		b = b[n:]
	}
	return string(out)
}
