package views

import (
	"bytes"
	"context"
	"fmt"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// CertificatePDF writes a certificate as an A4 PDF in l: the same sentence
// and facts as its page, and the address that verifies it. The Go fonts
// are embedded (as Unicode), so every language's letters print.
func CertificatePDF(l *locale.Lang, c accounting.Certificate, verifyURL string) ([]byte, error) {
	ctx := locale.With(context.Background(), l)
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
	pdf.Ln(20)
	pdf.SetFont("go", "", 11)
	for _, f := range [][2]string{
		{l.T("certificate.issued_on"), l.Date(c.IssuedAt)},
		{l.T("certificate.code"), c.Code},
		{l.T("certificate.verify"), verifyURL},
	} {
		pdf.SetFont("go", "B", 11)
		pdf.CellFormat(0, 7, f[0], "", 1, "L", false, 0, "")
		pdf.SetFont("go", "", 11)
		pdf.MultiCell(0, 7, f[1], "", "L", false)
		pdf.Ln(2)
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("certificate pdf: %w", err)
	}
	return buf.Bytes(), nil
}
