package accounting_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// Amounts of credit in warnings read as on the pages: thousands separated.
func TestClampWarningFormatsCredit(t *testing.T) {
	s := accounting.Summary{Last30: accounting.Totals{Clamped: 12345.678}}
	for _, w := range accounting.Warnings(nil, s, time.Now()) {
		if w.Kind != "clamped" {
			continue
		}
		if !strings.Contains(w.Text, "claimed 12,346 more") {
			t.Errorf("clamp warning: %q", w.Text)
		}
		return
	}
	t.Error("no clamp warning")
}
