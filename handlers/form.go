package handlers

import (
	"errors"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/cobble-am/cobble/accounting"
)

// Messages for fields that hold something other than printable text.
const (
	msgNotText      = "This field is not valid text (invalid UTF-8). Please type it again."
	msgNotPrintable = "Use printable characters only."
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
	fields := map[string]string{}
	for name, values := range r.Form {
		if msg := checkText(name, false); msg != "" {
			return errBadForm // a field name no form of Cobble's has
		}
		for _, v := range values {
			if msg := checkText(v, slices.Contains(multiLine, name)); msg != "" {
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
// (accounting.Printable, or PrintableLines when multiLine), or "" when it is.
func checkText(s string, multiLine bool) string {
	switch {
	case !utf8.ValidString(s):
		return msgNotText
	case multiLine && !accounting.PrintableLines(s), !multiLine && !accounting.Printable(s):
		return msgNotPrintable
	}
	return ""
}

// formErrors returns the field messages of a validation error, or nil
// for any other error.
func formErrors(err error) map[string]string {
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		return invalid.Fields
	}
	return nil
}

// textOnly returns s, or "" when s is not printable text: such bytes are
// not shown back in a form.
func textOnly(s string) string {
	if checkText(s, false) != "" {
		return ""
	}
	return s
}
