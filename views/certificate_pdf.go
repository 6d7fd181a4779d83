package views

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/unicode/norm"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// CertificatePDF writes a certificate as an A4 PDF in l: the same sentence
// and facts as its page, and the address that verifies it. The Go fonts
// are embedded (as Unicode): they print Latin, Greek and Cyrillic letters;
// a character of the name or the projects they have no glyph for (stored
// before the form refused it, see CertificateCannotPrint) prints as �.
func CertificatePDF(l *locale.Lang, c accounting.Certificate, site, base string) ([]byte, error) {
	verifyURL := base + "certificates/" + c.Code
	ctx := locale.With(context.Background(), l)
	faces, err := certificateFaces()
	if err != nil {
		return nil, fmt.Errorf("certificate pdf: %w", err)
	}
	c.Name = printable(faces, c.Name)
	c.Projects = slices.Clone(c.Projects)
	for i, p := range c.Projects {
		c.Projects[i] = printable(faces, p)
	}
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(c.IssuedAt)
	pdf.SetModificationDate(c.IssuedAt)
	pdf.SetTitle(l.T("certificate.title"), true)
	pdf.SetLang(l.Code)
	pdf.AddUTF8FontFromBytes("go", "", goregular.TTF)
	pdf.AddUTF8FontFromBytes("go", "B", gobold.TTF)
	pdf.SetMargins(25, 30, 25)
	pdf.AddPage()
	pdf.SetDrawColor(int(badgeBand.R), int(badgeBand.G), int(badgeBand.B))
	pdf.SetLineWidth(1.2)
	pdf.Rect(12, 12, 186, 273, "D")
	pdf.SetFont("go", "B", 26)
	pdf.CellFormat(0, 16, l.T("certificate.title"), "", 1, "C", false, 0, "")
	pdf.Ln(12)
	pdf.SetFont("go", "", 15)
	sentence := l.T("certificate.sentence", "Name", c.Name, "Confirmed", l.Credit(c.Confirmed),
		"Estimated", l.Credit(c.Estimated), "Projects", certProjects(ctx, c.Projects),
		"From", l.Date(c.From), "To", l.Date(c.To))
	pdf.MultiCell(0, 9, sentence, "", "C", false)
	pdf.Ln(10)
	pdf.SetFont("go", "", 10)
	pdf.MultiCell(0, 6, l.T("certificate.cobblestones"), "", "C", false)
	// The facts stand at the foot of the frame, so that the page is
	// laid out over its whole height.
	pdf.SetY(max(pdf.GetY()+12, 200))
	for _, f := range [][2]string{
		{l.T("certificate.issuer"), l.T("certificate.issuer_value", "Site", site, "URL", base)},
		{l.T("certificate.issued_on"), l.Date(c.IssuedAt)},
		{l.T("certificate.code"), c.Code},
	} {
		pdf.SetFont("go", "B", 11)
		pdf.CellFormat(0, 7, f[0], "", 1, "L", false, 0, "")
		pdf.SetFont("go", "", 11)
		pdf.MultiCell(0, 7, f[1], "", "L", false)
		pdf.Ln(2)
	}
	pdf.SetFont("go", "B", 11)
	pdf.CellFormat(0, 7, l.T("certificate.verify"), "", 1, "L", false, 0, "")
	pdf.SetFont("go", "", 10)
	pdf.CellFormat(0, 7, verifyURL, "", 1, "L", false, 0, verifyURL) // a link in the PDF
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("certificate pdf: %w", err)
	}
	return buf.Bytes(), nil
}

// CertificateCannotPrint returns the characters of name (in its NFC form,
// the form a certificate stores) that the certificate's PDF has no glyph
// for, each once, in order: empty when it prints them all.
func CertificateCannotPrint(name string) ([]rune, error) {
	faces, err := certificateFaces()
	if err != nil {
		return nil, err
	}
	var bad []rune
	for _, r := range norm.NFC.String(name) {
		if !canPrint(faces, r) && !slices.Contains(bad, r) {
			bad = append(bad, r)
		}
	}
	return bad, nil
}

// certificateFaces parses the regular and bold faces the PDF embeds.
func certificateFaces() ([]*sfnt.Font, error) {
	var faces []*sfnt.Font
	for _, ttf := range [][]byte{goregular.TTF, gobold.TTF} {
		f, err := sfnt.Parse(ttf)
		if err != nil {
			return nil, err
		}
		faces = append(faces, f)
	}
	return faces, nil
}

// canPrint reports whether every face has a glyph for r.
func canPrint(faces []*sfnt.Font, r rune) bool {
	var b sfnt.Buffer
	for _, f := range faces {
		if g, err := f.GlyphIndex(&b, r); err != nil || g == 0 {
			return false
		}
	}
	return true
}

// printable is s in NFC with every character the faces cannot print
// replaced by U+FFFD, which they can.
func printable(faces []*sfnt.Font, s string) string {
	return strings.Map(func(r rune) rune {
		if canPrint(faces, r) {
			return r
		}
		return '\uFFFD'
	}, norm.NFC.String(s))
}
