package boinc

import (
	"math"
	"strconv"
)

// parseExportInt parses a decimal integer as db_dump writes it, with an
// optional sign and surrounding white space. It reports false for
// anything else and for values beyond the range of int64.
func parseExportInt(b []byte) (int64, bool) {
	b = trimSpace(b)
	neg := len(b) > 0 && b[0] == '-'
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		d := uint64(c - '0')
		if d > 9 || n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	switch {
	case neg && n <= 1<<63:
		return int64(-n), true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// parseExportFloat parses a number as printf writes it ("12345.678901",
// "1.5e+10", "-nan", "inf"), with surrounding white space, and reports
// whether it could. Numbers with at most 15 significant digits and 22
// decimals, which is what %f writes for credit, take a fast exact path;
// the rest go to strconv.ParseFloat, which gives the same results.
func parseExportFloat(b []byte) (float64, bool) {
	b = trimSpace(b)
	if v, ok := parseSimpleFloat(b); ok {
		return v, true
	}
	if len(b) == 4 && b[0] == '-' && (string(b[1:]) == "nan" || string(b[1:]) == "NaN") {
		return math.NaN(), true
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseSimpleFloat parses [-]digits[.digits] when the digits, read as an
// integer, fit in the 53-bit mantissa and there are at most 22 decimals:
// then one division of two exact values is correctly rounded. It reports
// false for every other input, which the caller hands to strconv.
func parseSimpleFloat(b []byte) (float64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var m uint64
	digits, decimals, dot := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if m >= 1<<53/10 {
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				decimals++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || decimals >= len(pow10) {
		return 0, false
	}
	v := float64(m) / pow10[decimals]
	if neg {
		v = -v
	}
	return v, true
}

// trimSpace returns b without leading and trailing XML white space.
func trimSpace(b []byte) []byte {
	b = b[skipSpace(b, 0):]
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\n', '\r', '\t':
			b = b[:len(b)-1]
			continue
		}
		break
	}
	return b
}
