package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// Home is the start page: a welcome for visitors, the dashboard for volunteers.
func (a *Volunteer) Home(w http.ResponseWriter, r *http.Request) error {
	u := currentUser(r)
	if u == nil {
		projects, err := a.catalog.Projects(r.Context())
		if err != nil {
			return err
		}
		projects = slices.DeleteFunc(projects, func(p accounting.Project) bool { return !p.Open() })
		p := a.page(r, tr(r, "dashboard.welcome_title"))
		if a.sessions.PopString(r.Context(), sessionNotice) == noticeLoggedOut {
			p.Notice = tr(r, "login.logged_out")
		}
		a.render(w, r, http.StatusOK, views.Welcome(p, projects))
		return nil
	}
	ctx := r.Context()
	today := a.ledger.Today(a.now(), u.TimeZone)
	d := views.DashboardPage{Connect: views.Connect{AMURL: a.cfg.BaseURL, Email: u.Email}, TimeZone: u.TimeZone, Today: today}
	// The history and the totals are the two reads of the volunteer's
	// ledger rows; they go on two connections at once.
	var sumErr error
	var wg sync.WaitGroup
	wg.Go(func() { d.Summary, sumErr = a.ledger.Summary(ctx, u.ID, today) })
	var err error
	d.History, err = a.history(r, u, 0, today, "/")
	wg.Wait()
	if err = errors.Join(err, sumErr); err != nil {
		return err
	}
	var computers []accounting.Computer
	if d.Warnings, computers, err = a.dashboardWarnings(ctx, u.ID, today, d.Summary); err != nil {
		return err
	}
	d.HasComputers, d.Pause = len(computers) > 0, accounting.SummarizePause(computers)
	d.FirstContact = views.NewFirstContact(computers, d.Summary, time.Duration(a.cfg.RepeatSec*float64(time.Second)))
	if d.Team, err = myTeam(ctx, a.teams, u.ID); err != nil {
		return err
	}
	p := a.volunteerPage(r, locale.From(ctx).T("dashboard.title"), "dashboard")
	if a.sessions.PopString(ctx, sessionNotice) == noticeRecoveryLeft {
		p.Notice = locale.From(ctx).T("two_factor.recovery_left", "Count", a.sessions.PopInt(ctx, sessionRecoveryLeft))
	}
	a.render(w, r, http.StatusOK, views.Dashboard(p, d))
	return nil
}

// dashboardWarnings are the dashboard's warnings about the volunteer's
// computers and totals, failing computers included, and their computers.
func (a *Volunteer) dashboardWarnings(ctx context.Context, userID int64, today time.Time, s accounting.Summary) ([]accounting.Warning, []accounting.Computer, error) {
	computers, err := a.computers.Computers(ctx, userID, today)
	if err != nil {
		return nil, nil, err
	}
	failures, err := a.computers.Failures(ctx, userID, 0)
	ws := accounting.WarningsWithFailures(computers, s, a.now(), failures)
	return ws, computers, err
}

// history reads the window the query asks for (?days=30|90|365, default
// 30; ?by=project) of a volunteer's (or one computer's) history up to today,
// and the days up to which the projects' confirmed credit is known.
func (a *Volunteer) history(r *http.Request, u *accounting.User, hostID int64, today time.Time, base string) (views.History, error) {
	days := historyRange(r)
	h := views.History{From: today.AddDate(0, 0, 1-days), To: today, Days: days,
		ByProject: r.URL.Query().Get("by") == "project", BasePath: base}
	var err error
	if h.Rows, err = a.ledger.History(r.Context(), u.ID, hostID, h.From, h.To); err != nil {
		return h, err
	}
	h.ExportDays, err = a.ledger.ExportDays(r.Context(), u.TimeZone)
	return h, err
}

// historyRange reads ?days= (30, 90 or 365; default 30): the days of
// history a page charts.
func historyRange(r *http.Request) int {
	days, err := strconv.Atoi(r.URL.Query().Get("days"))
	if err != nil || !slices.Contains(views.HistoryRanges, days) {
		return views.HistoryRanges[0]
	}
	return days
}
