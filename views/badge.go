package views

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// The badge's size in pixels, the same as SVG and as PNG.
const (
	BadgeWidth  = 400
	BadgeHeight = 80
)

// badgeLine is one line of a badge: its text, font size and baseline.
type badgeLine struct {
	text     string
	size, y  float64
	bold     bool
	muted    bool
	maxWidth float64
}

// badgeLines are the badge's lines in l, at most three: the handle, the
// confirmed credit (all time and the last 30 days) when the profile shows
// its totals, the top science areas when it shows them, and the site's
// name on the lines left free.
func badgeLines(l *locale.Lang, b accounting.Badge) []badgeLine {
	w := float64(BadgeWidth - 24)
	lines := []badgeLine{{text: b.Handle, size: 18, y: 26, bold: true, maxWidth: w}}
	if b.Totals {
		lines = append(lines, badgeLine{text: l.T("badge.credit", "Confirmed", l.Credit(b.Confirmed), "Last30", l.Credit(b.Last30)),
			size: 13, y: 48, maxWidth: w})
	}
	if len(b.Areas) > 0 {
		areas := make([]string, len(b.Areas))
		for i, a := range b.Areas {
			areas[i] = areaName(l, a)
		}
		lines = append(lines, badgeLine{text: strings.Join(areas, " · "), size: 12, muted: true, maxWidth: w})
	}
	if len(lines) < 3 {
		lines = append(lines, badgeLine{text: l.T("badge.site", "Site", b.Site), size: 12, muted: true, maxWidth: w})
	}
	for i := range lines[1:] {
		lines[i+1].y = float64(48 + 20*i)
	}
	return lines
}

// The badge's colours: Cobble's green band, dark text, muted grey.
var (
	badgeBack  = color.RGBA{0xf6, 0xf8, 0xf5, 0xff}
	badgeBand  = color.RGBA{0x2f, 0x6b, 0x3a, 0xff}
	badgeText  = color.RGBA{0x1c, 0x24, 0x1e, 0xff}
	badgeMuted = color.RGBA{0x4a, 0x55, 0x4c, 0xff}
)

// hex writes c as #rrggbb.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// BadgeSVG draws the badge as SVG, in l. Its text is escaped; the fonts
// named are the Go fonts the PNG uses, then the reader's own.
func BadgeSVG(l *locale.Lang, b accounting.Badge) []byte {
	return badgeSVG(l.T("badge.alt", "Handle", b.Handle), badgeLines(l, b))
}

// BadgePNG draws the badge as a PNG of BadgeWidth×BadgeHeight pixels, in
// l, with the Go fonts.
func BadgePNG(l *locale.Lang, b accounting.Badge) ([]byte, error) {
	return badgePNG(badgeLines(l, b))
}

// badgeSVG draws lines on the badge's background as SVG, labelled alt.
func badgeSVG(alt string, lines []badgeLine) []byte {
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		BadgeWidth, BadgeHeight, BadgeWidth, BadgeHeight, html.EscapeString(alt))
	fmt.Fprintf(&s, `<rect width="%d" height="%d" rx="6" fill="%s"/><rect width="6" height="%d" fill="%s"/>`,
		BadgeWidth, BadgeHeight, hex(badgeBack), BadgeHeight, hex(badgeBand))
	fc := badgeFaces{}
	for _, ln := range lines {
		weight, fill := "normal", badgeText
		if ln.bold {
			weight = "bold"
		}
		if ln.muted {
			fill = badgeMuted
		}
		text := fc.fitText(ln.text, ln.size, ln.bold, ln.maxWidth)
		fmt.Fprintf(&s, `<text x="16" y="%g" font-family="Go, 'DejaVu Sans', sans-serif" font-size="%g" font-weight="%s" fill="%s">%s</text>`,
			ln.y, ln.size, weight, hex(fill), html.EscapeString(text))
	}
	s.WriteString(`</svg>`)
	return []byte(s.String())
}

// badgePNG draws lines on the badge's background as a PNG.
func badgePNG(lines []badgeLine) ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, BadgeWidth, BadgeHeight))
	draw.Draw(img, img.Bounds(), image.NewUniform(badgeBack), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 0, 6, BadgeHeight), image.NewUniform(badgeBand), image.Point{}, draw.Src)
	fc := badgeFaces{}
	for _, ln := range lines {
		face, err := fc.face(ln.size, ln.bold)
		if err != nil {
			return nil, err
		}
		fill := badgeText
		if ln.muted {
			fill = badgeMuted
		}
		d := font.Drawer{Dst: img, Src: image.NewUniform(fill), Face: face,
			Dot: fixed.P(16, int(ln.y))}
		d.DrawString(fc.fitText(ln.text, ln.size, ln.bold, ln.maxWidth))
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("badge png: %w", err)
	}
	return buf.Bytes(), nil
}

// fitText shortens s with an ellipsis until it is at most width pixels
// wide in the Go font of that size.
func (fc badgeFaces) fitText(s string, size float64, bold bool, width float64) string {
	face, err := fc.face(size, bold)
	if err != nil {
		return s
	}
	limit := fixed.Int26_6(width * 64)
	if font.MeasureString(face, s) <= limit {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && font.MeasureString(face, string(r)+"…") > limit {
		r = r[:len(r)-1]
	}
	return strings.TrimSpace(string(r)) + "…"
}

// badgeFonts are the parsed Go fonts, regular and bold.
var badgeFonts = sync.OnceValues(func() ([2]*opentype.Font, error) {
	var fs [2]*opentype.Font
	var err error
	if fs[0], err = opentype.Parse(goregular.TTF); err != nil {
		return fs, err
	}
	fs[1], err = opentype.Parse(gobold.TTF)
	return fs, err
})

// badgeFaces are the faces of one drawing, by size and weight: a face is
// not safe for concurrent use, so each badge makes its own (the parsed
// fonts are shared).
type badgeFaces map[badgeFaceKey]font.Face

// badgeFaceKey is a face's size and weight.
type badgeFaceKey struct {
	size float64
	bold bool
}

// face returns the Go font face of the size (pixels at 72 dpi).
func (fc badgeFaces) face(size float64, bold bool) (font.Face, error) {
	k := badgeFaceKey{size, bold}
	if f, ok := fc[k]; ok {
		return f, nil
	}
	fs, err := badgeFonts()
	if err != nil {
		return nil, fmt.Errorf("badge font: %w", err)
	}
	i := 0
	if bold {
		i = 1
	}
	f, err := opentype.NewFace(fs[i], &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("badge font: %w", err)
	}
	fc[k] = f
	return f, nil
}
