// Package numfmt formats numbers for people to read, the same way on
// Cobble's pages and in the texts the domain writes for them.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Credit formats an amount of credit for reading: thousands separated,
// two decimals below 100, one below 10,000, none above; none at all, too,
// when there is none, so that an empty column reads "0" beside integers.
func Credit(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	if v == 0 {
		return "0"
	}
	decimals := 0
	switch a := math.Abs(v); {
	case a < 100:
		decimals = 2
	case a < 10_000:
		decimals = 1
	}
	whole, frac, _ := strings.Cut(strconv.FormatFloat(v, 'f', decimals, 64), ".")
	if frac != "" {
		return Group(whole) + "." + frac
	}
	return Group(whole)
}

// Group puts thousands separators into a decimal integer.
func Group(whole string) string {
	sign := ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}
