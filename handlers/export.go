package handlers

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// exportColumns name the columns of the history download, in order (the
// keys of the JSON objects).
var exportColumns = []string{"day", "computer_id", "computer_name", "project_url", "project_name",
	"estimated_credit", "cpu_time_s", "gpu_time_s", "jobs_ok", "jobs_error", "clamped_credit", "confirmed_credit"}

// exportValues are a row's values in column order; numbers exact, as text.
func exportValues(r accounting.ExportRow) []string {
	return []string{r.Day.Format("2006-01-02"), strconv.FormatInt(r.ComputerID, 10), r.ComputerName,
		r.ProjectURL, r.ProjectName, r.Estimated.String(), r.CPUTime.String(), r.GPUTime.String(),
		strconv.FormatInt(r.JobsOK, 10), strconv.FormatInt(r.JobsError, 10), r.Clamped.String(), r.Confirmed.String()}
}

// exportNumeric says which columns are numbers (unquoted in JSON).
var exportNumeric = []bool{false, true, false, false, false, true, true, true, true, true, true, true}

// ExportCSV streams the volunteer's whole history as CSV. Text cells are
// made safe for spreadsheets (spreadsheetText); numbers are left as they are.
func (a *Volunteer) ExportCSV(w http.ResponseWriter, r *http.Request) error {
	return a.export(w, r, "text/csv; charset=utf-8", "csv", func(bw *bufio.Writer) (func(accounting.ExportRow) error, func() error) {
		cw := csv.NewWriter(bw)
		cw.Write(exportColumns)
		return func(row accounting.ExportRow) error { return cw.Write(csvValues(row)) },
			func() error { cw.Flush(); return cw.Error() }
	})
}

// csvValues are a row's CSV cells: exportValues with every text cell passed
// through spreadsheetText. Number cells are written as numbers, a negative
// one with its minus sign, so that a spreadsheet still sums them.
func csvValues(r accounting.ExportRow) []string {
	values := exportValues(r)
	for i, v := range values {
		if !exportNumeric[i] {
			values[i] = spreadsheetText(v)
		}
	}
	return values
}

// spreadsheetText keeps a text cell from being read as a formula: a cell
// that begins with =, +, -, @, a tab or a carriage return gets a ' in front
// (OWASP's advice on CSV injection), which spreadsheets show as text. A
// computer's name is whatever its BOINC client sends, so a host named
// =HYPERLINK(...) must reach the volunteer's spreadsheet as words, not as a
// live link.
func spreadsheetText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// ExportJSON streams the volunteer's whole history as a JSON array of objects.
func (a *Volunteer) ExportJSON(w http.ResponseWriter, r *http.Request) error {
	return a.export(w, r, "application/json", "json", func(bw *bufio.Writer) (func(accounting.ExportRow) error, func() error) {
		sep := "[\n"
		return func(row accounting.ExportRow) error {
				bw.WriteString(sep)
				sep = ",\n"
				return writeJSONObject(bw, exportValues(row))
			}, func() error {
				if sep == "[\n" {
					bw.WriteString(sep)
				}
				_, err := bw.WriteString("\n]\n")
				return err
			}
	})
}

func writeJSONObject(bw *bufio.Writer, values []string) error {
	bw.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(strconv.Quote(exportColumns[i]) + ":")
		if exportNumeric[i] {
			bw.WriteString(v)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	return bw.WriteByte('}')
}

// export streams rows through the writer start makes. Once the first
// bytes are out a failure cannot become an error page: the connection is
// aborted, so that no one takes a cut-off download for a whole one.
func (a *Volunteer) export(w http.ResponseWriter, r *http.Request, contentType, ext string,
	start func(*bufio.Writer) (row func(accounting.ExportRow) error, end func() error)) error {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", `attachment; filename="cobble-history.`+ext+`"`)
	w.Header().Set("Cache-Control", "no-store")
	sw := &sentWriter{w: w}
	bw := bufio.NewWriterSize(sw, 32<<10)
	row, end := start(bw)
	err := a.ledger.ExportHistory(r.Context(), currentUser(r).ID, row)
	if err == nil {
		err = end()
	}
	if err == nil {
		err = bw.Flush()
	}
	switch {
	case err != nil && !sw.sent:
		w.Header().Del("Content-Disposition")
		return err
	case err != nil:
		a.log.ErrorContext(r.Context(), "export failed", "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// sentWriter remembers whether anything was written.
type sentWriter struct {
	w    io.Writer
	sent bool
}

func (s *sentWriter) Write(p []byte) (int, error) {
	s.sent = true
	return s.w.Write(p)
}
