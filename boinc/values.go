package boinc

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// addText adds a text token to the open leaf element's text.
func (p *reqParser) addText(tok *xmlToken) {
	if p.nChunks == 0 && (tok.CDATA || bytes.IndexByte(tok.Data, '&') < 0) {
		p.txt, p.nChunks = tok.Data, 1
		return
	}
	if p.nChunks == 1 {
		p.txtBuf = append(p.txtBuf[:0], p.txt...)
	} else if p.nChunks == 0 {
		p.txtBuf = p.txtBuf[:0]
	}
	p.txtBuf = tok.AppendText(p.txtBuf)
	p.txt, p.nChunks = p.txtBuf, 2
}

// leafText returns the trimmed text of the leaf element being closed and
// resets the text state.
func (p *reqParser) leafText() []byte {
	t := bytes.TrimSpace(p.txt)
	p.txt, p.nChunks = nil, 0
	return t
}

// setString records v as the value of the string *dst. The string is
// assigned when the record it belongs to is flushed.
func (p *reqParser) setString(dst *string, v []byte) {
	p.strs.add(dst, p.CleanText(v))
}

// cleanText returns v as valid UTF-8 without NUL bytes: invalid bytes
// become U+FFFD and NULs are dropped. It returns v itself when it is
// already clean, else a slice of the parser's scratch buffer.
func (p *reqParser) CleanText(v []byte) []byte {
	if utf8.Valid(v) && bytes.IndexByte(v, 0) < 0 {
		return v
	}
	out := p.clean[:0]
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, "\uFFFD"...)
		case r != 0:
			out = append(out, v[i:i+n]...)
		}
		i += n
	}
	p.clean = out
	return out
}

// resourceName returns v as a string, sharing the constant for the
// client's usual resource names.
func resourceName(v []byte) string {
	switch string(v) {
	case "CPU":
		return "CPU"
	case "NVIDIA":
		return "NVIDIA"
	case "ATI":
		return "ATI"
	case "intel_gpu":
		return "intel_gpu"
	case "apple_gpu":
		return "apple_gpu"
	}
	return string(v)
}

// parseFloat parses a number as strconv.ParseFloat does, including "NaN"
// and "Inf". A value out of range is accepted as the ±Inf or zero
// ParseFloat returns for it.
func parseFloat(v []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// parseInt parses a decimal integer, or a number with an integral value
// such as "42.000000" or "4.2e1", that fits in an int64.
func parseInt(v []byte) (int64, bool) {
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	f, ok := parseFloat(v)
	if !ok || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// parseBool returns true for the <x/> form or a non-zero integer.
func parseBool(v []byte, selfClosing bool) bool {
	if selfClosing {
		return true
	}
	n, ok := parseInt(v)
	return ok && n != 0
}

// setFloat sets *dst to the number in v, or to 0 if v does not parse,
// and reports whether it parsed.
func setFloat(dst *float64, v []byte) bool {
	f, ok := parseFloat(v)
	*dst = f
	return ok
}

// setInt sets *dst to the integer in v, or to 0 if v does not parse or
// does not fit in an int.
func setInt(dst *int, v []byte) {
	n, ok := parseInt(v)
	if !ok || n < math.MinInt || n > math.MaxInt {
		n = 0
	}
	*dst = int(n)
}

// strBatch gathers the string fields of a record so that they share one
// allocation: values are appended to buf, and flush creates a single
// string and assigns each field a substring of it.
type strBatch struct {
	buf  []byte
	pend []pendingString
}

// pendingString is a field waiting for its value, which ends at end in
// strBatch.buf and starts where the previous pending value ends.
type pendingString struct {
	dst *string
	end int
}

// batchMark is a position in a strBatch; flush assigns the values added
// after it.
type batchMark struct{ buf, pend int }

func (b *strBatch) mark() batchMark {
	return batchMark{len(b.buf), len(b.pend)}
}

// add records v as the value of *dst. A later add for the same field
// wins, because flush assigns in order.
func (b *strBatch) add(dst *string, v []byte) {
	b.buf = append(b.buf, v...)
	b.pend = append(b.pend, pendingString{dst: dst, end: len(b.buf)})
}

// flush assigns the values added since m and forgets them.
func (b *strBatch) flush(m batchMark) {
	if len(b.pend) == m.pend {
		return
	}
	s := string(b.buf[m.buf:])
	start := 0
	for _, ps := range b.pend[m.pend:] {
		end := ps.end - m.buf
		*ps.dst = s[start:end]
		start = end
	}
	clear(b.pend[m.pend:])
	b.buf, b.pend = b.buf[:m.buf], b.pend[:m.pend]
}
