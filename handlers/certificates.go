package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// Certificates lists the volunteer's certificates, with the form that
// issues one (GET /certificates).
func (a *Settings) Certificates(w http.ResponseWriter, r *http.Request) error {
	u := currentUser(r)
	today := a.ledger.Today(a.now(), u.TimeZone)
	form := views.CertificateForm{Name: u.ChosenName(), From: today.AddDate(-1, 0, 1).Format(time.DateOnly),
		To: today.Format(time.DateOnly)}
	return a.renderCertificates(w, r, http.StatusOK, form)
}

// renderCertificates renders the volunteer's certificates with form.
func (a *Settings) renderCertificates(w http.ResponseWriter, r *http.Request, status int, form views.CertificateForm) error {
	list, err := a.public.Certificates(r.Context(), currentUser(r).ID)
	if err != nil {
		return err
	}
	form.Withdrawn = r.URL.Query().Get("withdrawn") == "1"
	a.render(w, r, status, views.Certificates(a.volunteerPage(r, tr(r, "certificate.list_title"), "dashboard"),
		views.CertificatesPage{Form: form, List: list}))
	return nil
}

// IssueCertificate issues a certificate of the volunteer's credit (POST
// /certificates, fields from and to as YYYY-MM-DD, and name, without
// which it is the name the volunteer gave their account, never one taken
// from the email) and answers 303 to its page; 422 naming the field for a
// missing or bad name or dates.
func (a *Settings) IssueCertificate(w http.ResponseWriter, r *http.Request) error {
	u := currentUser(r)
	err := parseForm(r)
	form := views.CertificateForm{Name: textOnly(r.PostForm.Get("name")), From: textOnly(r.PostForm.Get("from")),
		To: textOnly(r.PostForm.Get("to"))}
	if !r.PostForm.Has("name") {
		form.Name = u.ChosenName()
	}
	var c accounting.Certificate
	if err == nil {
		var req accounting.CertificateRequest
		if req, err = certificateRequest(form, locale.From(r.Context()).Code); err == nil {
			c, err = a.public.IssueCertificate(r.Context(), u.ID, req, a.ledger.Today(a.now(), u.TimeZone))
		}
	}
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		form.Errors = invalid.Fields
		return a.renderCertificates(w, r, http.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/certificates/"+c.Code, http.StatusSeeOther)
	return nil
}

// certificateRequest reads the form's name and dates: a
// *ValidationError naming a name with characters the certificate's PDF
// cannot print, and each date that is not one. The name is taken in its
// NFC form, so that a letter typed with a combining accent is one letter.
func certificateRequest(f views.CertificateForm, lang string) (accounting.CertificateRequest, error) {
	req := accounting.CertificateRequest{Name: norm.NFC.String(f.Name), Language: lang}
	fields := map[string]locale.Msg{}
	bad, err := views.CertificateCannotPrint(req.Name)
	if err != nil {
		return req, err
	}
	if len(bad) > 0 {
		fields["name"] = locale.M("certificate.name_unprintable", "Chars", quoteChars(bad))
	}
	if req.From, err = time.Parse(time.DateOnly, f.From); err != nil {
		fields["from"] = locale.M("certificate.bad_date")
	}
	if req.To, err = time.Parse(time.DateOnly, f.To); err != nil {
		fields["to"] = locale.M("certificate.bad_date")
	}
	if len(fields) > 0 {
		return req, &accounting.ValidationError{Fields: fields}
	}
	return req, nil
}

// quoteChars lists characters for a message: each quoted, the first
// five at most.
func quoteChars(rs []rune) string {
	var q []string
	for _, r := range rs[:min(len(rs), 5)] {
		q = append(q, strconv.QuoteRune(r))
	}
	return strings.Join(q, " ")
}

// Certificate shows a certificate to anyone who has its code (GET
// /certificates/{code}, and /certificates/{code}.pdf for the PDF): the
// facts it certified and nothing else. A guessed code is the one 404 page;
// a withdrawn one is 410, saying it was withdrawn.
func (a *Public) Certificate(w http.ResponseWriter, r *http.Request) error {
	code, pdf := strings.CutSuffix(r.PathValue("code"), ".pdf")
	c, err := a.public.Certificate(r.Context(), code)
	if err != nil {
		return err
	}
	if pdf {
		return a.certificatePDF(w, r, c)
	}
	d := views.CertificatePage{Certificate: c, URL: a.cfg.BaseURL + "certificates/" + c.Code, Base: a.cfg.BaseURL}
	if u := currentUser(r); u != nil {
		if d.Mine, err = a.public.OwnsCertificate(r.Context(), u.ID, c.Code); err != nil {
			return err
		}
	}
	a.render(w, r, http.StatusOK, views.CertificateView(a.page(r, tr(r, "certificate.title")), d))
	return nil
}

// certificatePDF writes the certificate as a PDF, in the language it was
// issued in.
func (a *Public) certificatePDF(w http.ResponseWriter, r *http.Request, c accounting.Certificate) error {
	doc, err := views.CertificatePDF(locale.Default().Lookup(c.Language), c, a.cfg.Name, a.cfg.BaseURL)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="certificate-`+c.Code+`.pdf"`)
	w.Write(doc)
	return nil
}

// WithdrawCertificate withdraws one of the volunteer's certificates (POST
// /certificates/{code}/withdraw): its page and PDF are gone from then on.
func (a *Settings) WithdrawCertificate(w http.ResponseWriter, r *http.Request) error {
	if err := a.public.WithdrawCertificate(r.Context(), currentUser(r).ID, r.PathValue("code")); err != nil {
		return err
	}
	http.Redirect(w, r, "/certificates?withdrawn=1", http.StatusSeeOther)
	return nil
}
