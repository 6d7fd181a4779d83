package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s         string
		multiLine bool
		want      locale.Msg
	}{
		{"", false, locale.Msg{}},
		{"Ada Lovelace", false, locale.Msg{}},
		{"Zoë ✓ 日本語 🙂", false, locale.Msg{}},
		{"\xff", false, msgNotText},
		{"cut short \xc3", false, msgNotText},
		{"\xff\n", true, msgNotText},
		{"a\x00b", false, msgNotPrintable},
		{"a\x1bb", false, msgNotPrintable}, // ESC
		{"a\x7fb", false, msgNotPrintable}, // DEL
		// C1 controls, U+0080 to U+009F, are control characters too.
		{"a\u0080b", false, msgNotPrintable},
		{"a\u0085b", false, msgNotPrintable}, // NEL
		{"a\u009fb", false, msgNotPrintable},
		// Tabs and line breaks only where a field may hold several lines.
		{"a\tb", false, msgNotPrintable},
		{"a\nb", false, msgNotPrintable},
		{"a\rb", false, msgNotPrintable},
		{"a\tb\r\nc\nd", true, locale.Msg{}},
		{"a\nb\x00", true, msgNotPrintable},
		{"a\nb\x0b", true, msgNotPrintable}, // vertical tab
		{"a\u0085b", true, msgNotPrintable},
	}
	for _, tt := range tests {
		if got := checkText(tt.s, tt.multiLine); got.ID != tt.want.ID || got.IsZero() != tt.want.IsZero() {
			t.Errorf("checkText(%q, %v) = %v, want %v", tt.s, tt.multiLine, got, tt.want)
		}
	}
}

func TestTextOnly(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{"": "", "Ada": "Ada", "Zoë": "Zoë", "\xff": "", "a\x00": "",
		"a\nb": "", "a\tb": "", "a\u0085": ""} {
		if got := textOnly(s); got != want {
			t.Errorf("textOnly(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestFormErrors(t *testing.T) {
	t.Parallel()
	fields := map[string]locale.Msg{"email": locale.Text("Enter an email address.")}
	tests := []struct {
		name string
		err  error
		want map[string]locale.Msg
	}{
		{"nil", nil, nil},
		{"validation", &accounting.ValidationError{Fields: fields}, fields},
		{"wrapped validation", fmt.Errorf("sign up: %w", &accounting.ValidationError{Fields: fields}), fields},
		{"other", fmt.Errorf("sign up: %w", accounting.ErrConflict), nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, formErrors(tt.err), cmp.AllowUnexported(locale.Msg{})); diff != "" {
			t.Errorf("%s: formErrors (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		query      string // the URL's query
		body       string
		limit      int64 // the body's size limit; 0 for none
		multiLine  []string
		wantErr    error                 // a sentinel, or nil
		wantFields map[string]locale.Msg // the validation error's fields, or nil
	}{
		{name: "text", query: "next=%2Fsettings", body: "name=Zo%C3%AB&email=ada%40example.org"},
		{name: "empty", body: ""},
		{name: "multi-line field", body: "note=one%0D%0Atwo%0Athree%09four", multiLine: []string{"note"}},
		{name: "line break in a single-line field", body: "name=a%0Ab&note=c%0Ad", multiLine: []string{"note"},
			wantFields: map[string]locale.Msg{"name": msgNotPrintable}},
		{name: "tab in a single-line field", body: "name=a%09b",
			wantFields: map[string]locale.Msg{"name": msgNotPrintable}},
		{name: "invalid UTF-8", body: "name=%FF&email=ada%40example.org",
			wantFields: map[string]locale.Msg{"name": msgNotText}},
		{name: "NUL", body: "name=a%00b", wantFields: map[string]locale.Msg{"name": msgNotPrintable}},
		{name: "C1 control", body: "name=a%C2%85b", wantFields: map[string]locale.Msg{"name": msgNotPrintable}},
		{name: "control in a multi-line field", body: "note=a%0Ab%1B", multiLine: []string{"note"},
			wantFields: map[string]locale.Msg{"note": msgNotPrintable}},
		{name: "control in the query", query: "q=a%01", wantFields: map[string]locale.Msg{"q": msgNotPrintable}},
		{name: "one bad value of several", body: "tag=ok&tag=b%00d", wantFields: map[string]locale.Msg{"tag": msgNotPrintable}},
		{name: "several fields", body: "name=%FF&email=a%07b", wantFields: map[string]locale.Msg{"name": msgNotText, "email": msgNotPrintable}},
		{name: "field name not text", body: "%FF=1", wantErr: errBadForm},
		{name: "field name with a control", body: "a%00=1", wantErr: errBadForm},
		{name: "malformed body", body: "name=%zz", wantErr: errBadForm},
		{name: "malformed query", query: "name=%zz", wantErr: errBadForm},
		{name: "oversized body", body: "note=" + strings.Repeat("a", 100), limit: 64, wantErr: errFormTooLarge},
		{name: "body at the limit", body: "note=" + strings.Repeat("a", 59), limit: 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/form?"+tt.query, strings.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.limit > 0 {
				r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, tt.limit)
			}
			err := parseForm(r, tt.multiLine...)
			var invalid *accounting.ValidationError
			switch {
			case tt.wantErr != nil:
				if err != tt.wantErr {
					t.Errorf("error %v, want %v", err, tt.wantErr)
				}
			case tt.wantFields != nil:
				if !errors.As(err, &invalid) {
					t.Fatalf("error %v, want a validation error", err)
				}
				if diff := cmp.Diff(tt.wantFields, invalid.Fields, cmp.AllowUnexported(locale.Msg{})); diff != "" {
					t.Errorf("fields (-want +got):\n%s", diff)
				}
			case err != nil:
				t.Errorf("error %v, want none", err)
			}
		})
	}
}
