package boinc

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// ExportTables is the summary a project publishes beside its credit
// exports in tables.xml.
type ExportTables struct {
	UpdateTime  int64   // <update_time>: when the exports were written, Unix seconds
	NUsersTotal int64   // <nusers_total>: users with credit
	NTeamsTotal int64   // <nteams_total>: teams with credit
	NHostsTotal int64   // <nhosts_total>: hosts with credit
	TotalCredit float64 // <total_credit>: the project's total granted credit
}

// maxTablesSize bounds the size of tables.xml, a file of a few hundred
// bytes.
const maxTablesSize = 1 << 20

// ParseTables reads a tables.xml file from r. It ignores the declaration,
// white space and elements it does not know; a missing count or total is
// zero. The error wraps [ErrBadExport] if the file is larger than 1 MiB,
// has no <tables> root, no <update_time> or a number it cannot parse, or
// ends before </tables>; otherwise it is the error of the reader.
func ParseTables(r io.Reader) (*ExportTables, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxTablesSize+1))
	if err != nil {
		return nil, fmt.Errorf("boinc: reading tables.xml: %w", err)
	}
	if len(b) > maxTablesSize {
		return nil, tablesError("larger than %d bytes", maxTablesSize)
	}
	sc := newXMLScanner(bytes.TrimPrefix(b, []byte(utf8BOM)))
	if err := tablesRoot(sc); err != nil {
		return nil, err
	}
	t := &ExportTables{}
	seen, err := tablesFields(sc, t)
	if err != nil {
		return nil, err
	}
	if !seen {
		return nil, tablesError("no <update_time>")
	}
	return t, nil
}

// tablesError returns an error wrapping ErrBadExport about tables.xml.
func tablesError(format string, args ...any) error {
	return fmt.Errorf("%w: tables.xml: %s", ErrBadExport, fmt.Sprintf(format, args...))
}

// tablesRoot consumes the tokens up to and including the <tables> start
// tag.
func tablesRoot(sc *xmlScanner) error {
	for sc.advance() {
		tok := sc.tok
		switch {
		case tok.Kind == tokText && len(trimSpace(tok.Data)) == 0:
			continue
		case tok.Kind == tokStart && string(tok.Name) == "tables" && !tok.SelfClosing:
			return nil
		case tok.Kind == tokStart || tok.Kind == tokEnd:
			return tablesError("root element is <%s>, want <tables>", clip(tok.Name))
		}
		return tablesError("text %s before <tables>", quoteClip(tok.Data))
	}
	return tablesError("no <tables> element")
}

// tablesFields reads the children of <tables> into t up to </tables>,
// and reports whether <update_time> was among them.
func tablesFields(sc *xmlScanner, t *ExportTables) (bool, error) {
	var name, text []byte
	depth, seen := 1, false
	for sc.advance() {
		tok := sc.tok
		switch {
		case tok.Kind == tokStart && !tok.SelfClosing:
			if depth++; depth == 2 {
				name, text = tok.Name, text[:0]
			}
		case tok.Kind == tokText && depth == 2:
			text = tok.AppendText(text)
		case tok.Kind == tokEnd:
			if depth--; depth == 0 {
				return seen, nil
			}
			if depth == 1 {
				seen = seen || string(name) == "update_time"
				if err := setTablesField(t, name, text); err != nil {
					return false, err
				}
			}
		}
	}
	return false, tablesError("ends before </tables>")
}

// setTablesField stores the text of the child element name of <tables>.
func setTablesField(t *ExportTables, name, text []byte) error {
	var n *int64
	switch string(name) {
	case "update_time":
		n = &t.UpdateTime
	case "nusers_total":
		n = &t.NUsersTotal
	case "nteams_total":
		n = &t.NTeamsTotal
	case "nhosts_total":
		n = &t.NHostsTotal
	case "total_credit":
		v, ok := parseExportFloat(text)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return tablesError("<total_credit> is not a number: %s", quoteClip(text))
		}
		t.TotalCredit = v
		return nil
	default:
		return nil
	}
	v, ok := parseExportInt(text)
	if !ok {
		return tablesError("<%s> is not an integer: %s", name, quoteClip(text))
	}
	*n = v
	return nil
}
