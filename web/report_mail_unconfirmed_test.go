package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// "Email me the answer" with an address not yet confirmed is refused with
// 422 naming the field and saying why, and nothing is stored; the admin's
// form promises mail only when it will go (issue 45, item 11).
func TestReportMailNeedsAConfirmedAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newVolunteerEnv(t)
	alpha := e.adaHosts[0]
	day := e.store.Ledger.Today(time.Now(), "UTC").AddDate(0, 0, -5).Format(time.DateOnly)
	reports := fmt.Sprintf("%s/computers/%d/reports", e.http.URL, alpha.ID)
	form := url.Values{"day": {day}, "project": {fmt.Sprint(e.projects[1].ID)}, "text": {"The credit looks low."},
		"mail_answer": {"on"}}
	status, body, _ := do(t, e.adaClient, "POST", reports, form, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, `id="mail_answer-error"`) ||
		!strings.Contains(body, "confirm") {
		t.Errorf("mail to an unconfirmed address: status %d, want 422 naming mail_answer; errors %q", status, fieldErrors(body))
	}
	if stored, err := e.store.Reports.ComputerReports(ctx, e.ada.ID, alpha.ID); err != nil || len(stored) != 0 {
		t.Fatalf("a refused report was stored: %+v, %v", stored, err)
	}
	// A report that asked for mail before Ada's address stopped being
	// confirmed (she changed it since): the admin is not promised mail.
	if _, err := e.pool.Exec(ctx, `INSERT INTO day_reports (user_id, host_id, project_id, day, text, created_at, mail_answer)
		VALUES ($1, $2, $3, $4, 'Where is my credit?', now(), true)`, e.ada.ID, alpha.ID, e.projects[1].ID, day); err != nil {
		t.Fatal(err)
	}
	admin := e.adminSession(t)
	_, queue, _ := do(t, admin, "GET", e.http.URL+"/admin/reports", nil, nil)
	label := regexp.MustCompile(`(?s)<label for="answer-\d+">(.*?)</label>`).FindStringSubmatch(queue)
	if label == nil || strings.Contains(label[1], "and by mail") || !strings.Contains(label[1], "not confirmed") {
		t.Errorf("the admin's answer form for an unconfirmed address says %q, want no promise of mail", label)
	}
	if _, err := e.pool.Exec(ctx, `UPDATE users SET email_confirmed_at = now() WHERE id = $1`, e.ada.ID); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := do(t, e.adaClient, "POST", reports, form, nil); status != http.StatusSeeOther {
		t.Errorf("mail to a confirmed address: status %d, want 303", status)
	}
}
