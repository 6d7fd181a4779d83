package boinc

import (
	"bytes"
	"unicode/utf8"
)

// unescape returns src with its entity references decoded as
// [AppendUnescaped] does. When src contains no '&' it returns src itself
// without allocating; otherwise it returns a new slice.
func unescape(src []byte) []byte {
	if bytes.IndexByte(src, '&') < 0 {
		return src
	}
	return AppendUnescaped(make([]byte, 0, len(src)), src)
}

// AppendUnescaped appends src to dst with entity references decoded
// leniently and returns the extended slice.
//
// The references &amp; &lt; &gt; &quot; &apos;, decimal &#NN; and
// hexadecimal &#xHH; are decoded; any other '&' (a bare ampersand, an
// unknown entity, a reference without ';', a reference to code point 0,
// a surrogate or a value beyond U+10FFFF) is kept literally.
//
// BOINC software escapes each byte of a non-ASCII UTF-8 character as its
// own reference (é becomes &#195;&#169;). So numeric references from 128
// to 255 are decoded as single bytes; only if the bytes decoded that way
// do not form valid UTF-8 are they decoded as the Unicode code points
// U+0080 to U+00FF instead, as XML would have it.
func AppendUnescaped(dst, src []byte) []byte {
	if bytes.IndexByte(src, '&') < 0 {
		return append(dst, src...)
	}
	start := len(dst)
	dst, high := appendUnescaped(dst, src, true)
	if high && !utf8.Valid(dst[start:]) {
		dst, _ = appendUnescaped(dst[:start], src, false)
	}
	return dst
}

// appendUnescaped decodes src onto dst. With byteRefs, references from
// 128 to 255 become single bytes, and high reports whether any did.
func appendUnescaped(dst, src []byte, byteRefs bool) (out []byte, high bool) {
	for {
		i := bytes.IndexByte(src, '&')
		if i < 0 {
			return append(dst, src...), high
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		r, n := entity(src)
		switch {
		case n == 0:
			dst = append(dst, '&')
			n = 1
		case byteRefs && r >= 0x80 && r <= 0xff:
			dst = append(dst, byte(r))
			high = true
		default:
			dst = utf8.AppendRune(dst, r)
		}
		src = src[n:]
	}
}

// maxEntityLen bounds the length of a reference, "&#x10FFFF;" included.
const maxEntityLen = 12

// entity decodes the reference at the start of src, which begins with
// '&'. It returns the character and the reference's length, or n == 0 if
// src does not begin with a reference this package decodes.
func entity(src []byte) (r rune, n int) {
	end := bytes.IndexByte(src[:min(len(src), maxEntityLen)], ';')
	if end < 2 {
		return 0, 0
	}
	name := src[1:end]
	switch string(name) {
	case "amp":
		return '&', end + 1
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "quot":
		return '"', end + 1
	case "apos":
		return '\'', end + 1
	}
	if name[0] != '#' {
		return 0, 0
	}
	r, ok := charRef(name[1:])
	if !ok {
		return 0, 0
	}
	return r, end + 1
}

// charRef decodes the digits of a numeric character reference: decimal,
// or hexadecimal after 'x' (or 'X'). It rejects invalid code points.
func charRef(digits []byte) (rune, bool) {
	base := rune(10)
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		base, digits = 16, digits[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	var r rune
	for _, c := range digits {
		d := hexDigit(c)
		if d < 0 || rune(d) >= base {
			return 0, false
		}
		r = r*base + rune(d)
		if r > utf8.MaxRune {
			return 0, false
		}
	}
	if r == 0 || !utf8.ValidRune(r) {
		return 0, false
	}
	return r, true
}

// hexDigit returns the value of the hexadecimal digit c, or -1.
func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// appendEscaped appends s to dst escaped for XML character data or a
// quoted attribute: & < > " ' become entity references. Non-ASCII text is
// written as raw UTF-8, never as numeric references, because a BOINC
// client decodes each reference below 256 as a single byte. Invalid UTF-8
// and the characters XML 1.0 cannot carry (control characters other than
// tab, newline and carriage return; U+FFFE and U+FFFF) are replaced by
// U+FFFD.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r == 0xFFFE || r == 0xFFFF {
				dst = append(dst, "\uFFFD"...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '&':
			dst = append(dst, "&amp;"...)
		case c == '<':
			dst = append(dst, "&lt;"...)
		case c == '>':
			dst = append(dst, "&gt;"...)
		case c == '"':
			dst = append(dst, "&quot;"...)
		case c == '\'':
			dst = append(dst, "&apos;"...)
		case c < ' ' && c != '\t' && c != '\n' && c != '\r':
			dst = append(dst, "\uFFFD"...)
		default:
			dst = append(dst, c)
		}
		i++
	}
	return dst
}
