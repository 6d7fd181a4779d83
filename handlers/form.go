package handlers

import (
	"errors"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// Messages for fields that hold something other than printable text.
var (
	msgNotText      = locale.M("form.not_text")
	msgNotPrintable = locale.M("form.not_printable")
)

// parseForm reads a posted form. Failing to read it is errBadForm or
// errFormTooLarge. A field (in the body or the query) whose value is not
// valid UTF-8, or holds a control character, is an
// *accounting.ValidationError naming that field: such bytes never reach
// the domain or the database. Fields named in multiLine may hold tabs and
// line breaks.
func parseForm(r *http.Request, multiLine ...string) error {
	err := r.ParseForm()
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return errFormTooLarge
	case err != nil:
		return errBadForm
	}
	fields := map[string]locale.Msg{}
	for name, values := range r.Form {
		if !checkText(name, false).IsZero() {
			return errBadForm // a field name no form of Cobble's has
		}
		for _, v := range values {
			if msg := checkText(v, slices.Contains(multiLine, name)); !msg.IsZero() {
				fields[name] = msg
			}
		}
	}
	if len(fields) > 0 {
		return &accounting.ValidationError{Fields: fields}
	}
	return nil
}

// checkText returns the message for a value that is not printable text
// (accounting.Printable, or PrintableLines when multiLine), or none when it is.
func checkText(s string, multiLine bool) locale.Msg {
	switch {
	case !utf8.ValidString(s):
		return msgNotText
	case multiLine && !accounting.PrintableLines(s), !multiLine && !accounting.Printable(s):
		return msgNotPrintable
	}
	return locale.Msg{}
}

// formErrors returns the field messages of a validation error, or nil
// for any other error.
func formErrors(err error) map[string]locale.Msg {
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		return invalid.Fields
	}
	return nil
}

// textOnly returns s, or "" when s is not printable text: such bytes are
// not shown back in a form.
func textOnly(s string) string {
	if !checkText(s, false).IsZero() {
		return ""
	}
	return s
}
