package boinc

import (
	"fmt"
	"strings"
	"testing"
)

// tokens renders every token of input compactly: <a> </a> <a/> "text" [cdata].
func tokens(input string) string {
	var out []string
	s := newXMLScanner([]byte(input))
	for tok := s.Next(); tok.Kind != tokEOF; tok = s.Next() {
		switch {
		case tok.Kind == tokStart && tok.SelfClosing:
			out = append(out, "<"+string(tok.Name)+"/>")
		case tok.Kind == tokStart:
			out = append(out, "<"+string(tok.Name)+">")
		case tok.Kind == tokEnd:
			out = append(out, "</"+string(tok.Name)+">")
		case tok.CDATA:
			out = append(out, "["+string(tok.Data)+"]")
		default:
			out = append(out, fmt.Sprintf("%q", tok.Data))
		}
	}
	return strings.Join(out, " ")
}

func TestScannerTokens(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"<a>x</a>", `<a> "x" </a>`},
		{`<?xml version="1.0"?><a b="1" c='>'/>`, `<a> "'/>"`},
		{"<a/><b />< c></a >", `<a/> <b/> "< c>" </a>`},
		{"<!-- <x> -->t<!DOCTYPE r [ <!ENTITY e 'v'> ]><y>", `"t" <y>`},
		{"<![CDATA[<a>&amp;]]>z<![CDATA[]]>", `[<a>&amp;] "z"`},
		{"a < b && c <3 <", `"a < b && c <3 <"`},
		{"x<b</name>", `"x" "<b" </name>`},
		{"<unterminated", `"<unterminated"`},
		{"</>", `"</>"`},
		{"<!-- open", ``},
		{"<![CDATA[open", `[open]`},
		{"<?pi open", ``},
		{"<ns:tag>é<é/>", `<ns:tag> "é" <é/>`},
		{"<a\n  x='1'\n/>", `<a/>`},
	}
	for _, tt := range tests {
		if got := tokens(tt.in); got != tt.want {
			t.Errorf("tokens(%q)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[tokenKind]string{tokEOF: "EOF", tokStart: "StartTag", tokEnd: "EndTag", tokText: "Text", 9: "Kind(?)"} {
		if got := k.String(); got != want {
			t.Errorf("tokenKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestScannerRawUntil(t *testing.T) {
	s := newXMLScanner([]byte("<a><b>raw & <c></a>after"))
	if tok := s.Next(); tok.Kind != tokStart || string(tok.Name) != "a" {
		t.Fatalf("first token = %v %q", tok.Kind, tok.Name)
	}
	if raw, ok := s.RawUntil("</x>"); ok || raw != nil || s.Offset() != 3 {
		t.Fatalf("RawUntil(missing) = %q, %v, offset %d", raw, ok, s.Offset())
	}
	raw, ok := s.RawUntil("</a>")
	if !ok || string(raw) != "<b>raw & <c>" {
		t.Fatalf("RawUntil = %q, %v", raw, ok)
	}
	if tok := s.Next(); tok.Kind != tokText || string(tok.Data) != "after" {
		t.Fatalf("after RawUntil: %v %q", tok.Kind, tok.Data)
	}
	if tok := s.Next(); tok.Kind != tokEOF {
		t.Fatalf("at end: %v", tok.Kind)
	}
	if tok := s.Next(); tok.Kind != tokEOF {
		t.Fatalf("after end: %v", tok.Kind)
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"&amp;&lt;&gt;&quot;&apos;", `&<>"'`},
		{"a & b &c &amp &; &#; &#x; &#0; &#xD800; &#x110000; &#99999999999;", "a & b &c &amp &; &#; &#x; &#0; &#xD800; &#x110000; &#99999999999;"},
		{"&#65;&#x42;&#X43;&#xe9;", "ABCé"},
		{"&#195;&#169;", "é"},              // BOINC: one reference per UTF-8 byte
		{"&#233; &#xe9;", "é é"},           // XML: Latin-1 code points
		{"&#x20AC;&#128512;", "€😀"},        // beyond 255: always code points
		{"&AMP; &Amp;", "&AMP; &Amp;"},     // names are case-sensitive
		{"&ampx;&amp;amp;", "&ampx;&amp;"}, // decoded once
		{"&#10;&#13;&#9;", "\n\r\t"},       // white space references
		{"x&#65", "x&#65"},                 // no semicolon
		{"&" + strings.Repeat("a", 20) + ";", "&" + strings.Repeat("a", 20) + ";"},
	}
	for _, tt := range tests {
		if got := string(unescape([]byte(tt.in))); got != tt.want {
			t.Errorf("unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	in := []byte("no entities")
	if out := unescape(in); &out[0] != &in[0] {
		t.Error("unescape copied text without '&'")
	}
	if got := string(AppendUnescaped([]byte("pre:"), []byte("&lt;"))); got != "pre:<" {
		t.Errorf("AppendUnescaped = %q", got)
	}
	tok := xmlToken{Kind: tokText, Data: []byte("&amp;"), CDATA: true}
	if got := string(tok.AppendText(nil)); got != "&amp;" {
		t.Errorf("CDATA AppendText = %q, want it literal", got)
	}
}

func TestScannerAllocs(t *testing.T) {
	body := readFixture(t, "3-sync-with-ec.request.xml")
	s := newXMLScanner(body)
	n := testing.AllocsPerRun(100, func() {
		s.Reset(body)
		for s.Next().Kind != tokEOF {
		}
	})
	if n != 0 {
		t.Errorf("scanning allocates %v times, want 0", n)
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range []string{"<a>x</a>", "<![CDATA[", "<!DOCTYPE [", "&#x", "<a/>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newXMLScanner(b)
		last := 0
		for tok := s.Next(); tok.Kind != tokEOF; tok = s.Next() {
			if s.Offset() <= last {
				t.Fatalf("offset did not advance: %d after %d", s.Offset(), last)
			}
			last = s.Offset()
			if (tok.Kind == tokText) == (len(tok.Data) == 0) || (tok.Kind != tokText) == (len(tok.Name) == 0) {
				t.Fatalf("bad token %+v", tok)
			}
			_ = tok.AppendText(nil)
		}
	})
}
