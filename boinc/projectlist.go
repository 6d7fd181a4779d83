package boinc

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ListedProject is one <project> of BOINC's all_projects_list.xml, the list
// of vetted projects that BOINC publishes and the Manager shows: name,
// master URL, science area (general and specific), description (often
// HTML, in CDATA), home institution, platform names, and keyword ids
// separated by spaces. Position counts <project> elements from 1.
type ListedProject struct {
	Position     int
	Name         string   `xml:"name"`
	URL          string   `xml:"url"`
	WebURL       string   `xml:"web_url"`
	GeneralArea  string   `xml:"general_area"`
	SpecificArea string   `xml:"specific_area"`
	Description  string   `xml:"description"`
	Home         string   `xml:"home"`
	Platforms    []string `xml:"platforms>name"`
	Summary      string   `xml:"summary"`
	Keywords     string   `xml:"keywords"`
}

// ErrNotProjectList means the file is not a BOINC project list.
var ErrNotProjectList = errors.New("not a BOINC project list (no <projects> element)")

// ParseProjectList reads the <project> elements of an all_projects_list.xml
// file, in order; <account_manager> and unknown elements are skipped. The
// list is declared ISO-8859-1 by BOINC but often holds UTF-8: a file that
// is valid UTF-8 is read as UTF-8 whatever it declares, anything else as
// ISO-8859-1. It returns the entries read before a syntax error with that
// error, which names the line; maxEntries bounds the work of a hostile file.
func ParseProjectList(data []byte, maxEntries int) ([]ListedProject, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	isUTF8 := utf8.Valid(data)
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		if isUTF8 {
			return in, nil
		}
		return charsetReader(label, in)
	}
	var out []ListedProject
	seenRoot := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if !seenRoot {
				return nil, ErrNotProjectList
			}
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("project list: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		switch {
		case !ok:
		case se.Name.Local == "projects":
			seenRoot = true
		case se.Name.Local == "project" && seenRoot:
			if out, err = decodeProject(d, se, out, maxEntries); err != nil {
				return out, err
			}
		default:
			if err := d.Skip(); err != nil && seenRoot {
				return out, fmt.Errorf("project list: %w", err)
			}
		}
	}
}

// decodeProject reads one <project> element and appends it to out.
func decodeProject(d *xml.Decoder, se xml.StartElement, out []ListedProject, maxEntries int) ([]ListedProject, error) {
	if len(out) >= maxEntries {
		return out, fmt.Errorf("project list: more than %d projects", maxEntries)
	}
	p := ListedProject{Position: len(out) + 1}
	if err := d.DecodeElement(&p, &se); err != nil {
		return out, fmt.Errorf("project list: project %d: %w", p.Position, err)
	}
	return append(out, p.trimmed()), nil
}

func (p ListedProject) trimmed() ListedProject {
	for _, f := range []*string{&p.Name, &p.URL, &p.WebURL, &p.GeneralArea, &p.SpecificArea,
		&p.Description, &p.Home, &p.Summary, &p.Keywords} {
		*f = strings.TrimSpace(*f)
	}
	var platforms []string
	for _, pl := range p.Platforms {
		if pl = strings.TrimSpace(pl); pl != "" {
			platforms = append(platforms, pl)
		}
	}
	p.Platforms = platforms
	return p
}

// charsetReader decodes ISO-8859-1 (BOINC's declared encoding), whose bytes
// are the first 256 code points; UTF-8 passes through.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8":
		return in, nil
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "us-ascii":
		return &latin1Reader{r: bufio.NewReader(in)}, nil
	}
	return nil, fmt.Errorf("unsupported encoding %q", label)
}

type latin1Reader struct{ r *bufio.Reader }

func (l *latin1Reader) Read(p []byte) (int, error) {
	n := 0
	for n+utf8.UTFMax <= len(p) {
		b, err := l.r.ReadByte()
		if err != nil {
			return n, err
		}
		n += utf8.EncodeRune(p[n:], rune(b))
	}
	if n == 0 {
		return 0, io.ErrShortBuffer
	}
	return n, nil
}
