package views

import "strings"

// The credit charts' labels must stay inside their SVG (issue 45, item 9):
// their room is computed from an upper bound of the text's width, taken
// per character as a wide sans-serif font draws it, in ems.

// glyphEm is an upper bound of r's width in ems.
func glyphEm(r rune) float64 {
	switch {
	case strings.ContainsRune("MWmw@%…", r):
		return 1.0
	case strings.ContainsRune("iljtfrI.,:;'!| ()[]", r):
		return 0.42
	case r >= 'A' && r <= 'Z', r > 0x7f:
		return 0.8
	}
	return 0.66
}

// labelWidth is an upper bound of s's width in pixels at size px.
func labelWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		w += glyphEm(r)
	}
	return w * size
}

// fitLabel is s, cut (and marked so) to at most width pixels at size px.
func fitLabel(s string, width, size float64) string {
	if labelWidth(s, size) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && labelWidth(string(r)+"…", size) > width {
		r = r[:len(r)-1]
	}
	return strings.TrimSpace(string(r)) + "…"
}

// labelRoom is the room the longest of names takes at size px, each cut
// to at most most pixels, and at least least.
func labelRoom(names []string, size, least, most float64) float64 {
	room := least
	for _, n := range names {
		room = max(room, labelWidth(fitLabel(n, most, size), size))
	}
	return room
}
