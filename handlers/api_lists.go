package handlers

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// The page sizes of days: the default and the most.
const (
	defaultDaysPage = 1000
	maxDaysPage     = 5000
)

// APIProjects answers GET /api/v1/projects: the projects the volunteer's
// computers work or worked for, by id, with each computer's part and why
// Cobble gave it, a page at a time.
func (a *API) APIProjects(r *http.Request, u *accounting.User) (any, error) {
	limit, err := pageLimit(r, defaultPage, maxPage)
	if err != nil {
		return nil, err
	}
	after, err := idCursor(r, "p")
	if err != nil {
		return nil, err
	}
	ps, err := a.api.APIProjects(r.Context(), u.ID, after, limit+1)
	if err != nil {
		return nil, err
	}
	out := jsonProjects{Projects: []jsonProject{}}
	for i, p := range ps {
		if i == limit {
			out.NextCursor = orNull(makeCursor("p", strconv.FormatInt(ps[i-1].ID, 10)))
			break
		}
		jp := jsonProject{ID: p.ID, Name: p.Name, URL: p.URL, Totals: jsonTotals{p.Estimated, p.Confirmed},
			Computers: []jsonProjectComputer{}}
		for _, c := range p.Computers {
			jp.Computers = append(jp.Computers, jsonProjectComputer{ComputerID: c.ComputerID,
				Assigned: c.Assigned, Attached: c.Attached, Reason: orNull(string(c.Reason))})
		}
		out.Projects = append(out.Projects, jp)
	}
	return out, nil
}

// APIDays answers GET /api/v1/days?from=&to=&by=project|computer: the
// volunteer's days in their time zone, per project (from the rollups) or
// per computer, oldest first, a page at a time.
func (a *API) APIDays(r *http.Request, u *accounting.User) (any, error) {
	from, to, err := dayRange(r, a.ledger.Today(a.now(), u.TimeZone))
	if err != nil {
		return nil, err
	}
	by := cmp.Or(r.URL.Query().Get("by"), "project")
	if by != "project" && by != "computer" {
		return nil, invalid("by", "project or computer")
	}
	limit, err := pageLimit(r, defaultDaysPage, maxDaysPage)
	if err != nil {
		return nil, err
	}
	cursor, err := readCursor(r, "d", 2)
	if err != nil {
		return nil, err
	}
	days, err := a.apiDays(r, u.ID, by, from, to)
	if err != nil {
		return nil, err
	}
	days, err = afterDayCursor(days, cursor)
	if err != nil {
		return nil, err
	}
	// A project's confirmed credit is known through the day of its latest
	// export; by computer, through the earliest of those days.
	exports, err := a.ledger.ExportDays(r.Context(), u.TimeZone)
	if err != nil {
		return nil, err
	}
	through, err := a.confirmedThrough(r, u)
	if err != nil {
		return nil, err
	}
	out := jsonDays{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), By: by,
		TimeZone: u.TimeZone, Days: []jsonDay{}}
	for i, d := range days {
		if i == limit {
			last := days[i-1]
			out.NextCursor = orNull(makeCursor("d", last.Day.Format(time.DateOnly), strconv.FormatInt(last.Key, 10)))
			break
		}
		j := toJSONDay(d, by)
		if by == "project" {
			if x, ok := exports[d.Key]; !ok || d.Day.After(x) {
				j.Confirmed = nil
			}
		} else if through == nil || d.Day.Format(time.DateOnly) > *through {
			j.Confirmed = nil
		}
		out.Days = append(out.Days, j)
	}
	return out, nil
}

// apiDays reads the days by project or by computer, ordered by day and
// then the project's or computer's id.
func (a *API) apiDays(r *http.Request, userID int64, by string, from, to time.Time) ([]accounting.APIDay, error) {
	if by == "computer" {
		return a.api.ComputerDays(r.Context(), userID, from, to)
	}
	hs, err := a.ledger.History(r.Context(), userID, 0, from, to)
	days := make([]accounting.APIDay, len(hs))
	for i, h := range hs {
		days[i] = accounting.APIDayFromHistory(h)
	}
	slices.SortFunc(days, func(x, y accounting.APIDay) int {
		return cmp.Or(x.Day.Compare(y.Day), cmp.Compare(x.Key, y.Key))
	})
	return days, err
}

// afterDayCursor returns the days after the cursor's (day, key).
func afterDayCursor(days []accounting.APIDay, cursor []string) ([]accounting.APIDay, error) {
	if cursor == nil {
		return days, nil
	}
	day, err1 := time.Parse(time.DateOnly, cursor[0])
	key, err2 := strconv.ParseInt(cursor[1], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, badCursor
	}
	i, _ := slices.BinarySearchFunc(days, accounting.APIDay{Day: day, Key: key + 1}, func(x, y accounting.APIDay) int {
		return cmp.Or(x.Day.Compare(y.Day), cmp.Compare(x.Key, y.Key))
	})
	return days[i:], nil
}

// toJSONDay is d as the API sends it, keyed as by says.
func toJSONDay(d accounting.APIDay, by string) jsonDay {
	j := jsonDay{Day: d.Day.Format(time.DateOnly), Estimated: d.Estimated(), EstimatedCPU: d.CPUEC,
		EstimatedGPU: d.GPUEC, Confirmed: &d.Confirmed, CPUHours: d.CPUHours, GPUHours: d.GPUHours,
		JobsOK: d.JobsOK, JobsError: d.JobsError}
	if by == "computer" {
		j.ComputerID = d.Key
	} else {
		j.ProjectID = d.Key
	}
	return j
}
