package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
	"github.com/cobble-am/cobble/views"
)

// prefsForm loads what the preference sections show, and returns the
// volunteer's locations it read for them, so that /settings reads them once.
func (a *Settings) prefsForm(r *http.Request) (views.PrefsForm, []accounting.Location, error) {
	u := currentUser(r)
	prefs, err := a.computers.Preferences(r.Context(), u.ID)
	if err != nil {
		return views.PrefsForm{}, nil, err
	}
	projects, err := a.catalog.Projects(r.Context())
	if err != nil {
		return views.PrefsForm{}, nil, err
	}
	projects = slices.DeleteFunc(projects, func(p accounting.Project) bool { return !p.Choosable() })
	f := views.PrefsForm{Keywords: accounting.Keywords(), KeywordChoice: prefs.Keywords, Projects: projects,
		ProjectChoice: prefs.Projects, Preset: prefs.Preset, Location: accounting.DefaultLocation}
	f.Compute, _ = accounting.Preset(accounting.PresetStandard)
	if prefs.Compute != nil {
		f.Compute = *prefs.Compute
	}
	locs, err := a.computers.Locations(r.Context(), u.ID)
	if err != nil {
		return views.PrefsForm{}, nil, err
	}
	want := r.FormValue("location") // the location whose values the compute section shows
	for _, l := range locs {
		f.Locations = append(f.Locations, l.Name)
		if l.ID != 0 && strings.EqualFold(l.Name, strings.TrimSpace(want)) && l.Compute != nil {
			f.Location, f.Preset, f.Compute = l.Name, l.Preset, *l.Compute
		}
	}
	return f, locs, nil
}

// sectionTitles are the titles of the preferences' own pages.
var sectionTitles = map[string]locale.Msg{
	"science":  locale.M("science.title"),
	"projects": locale.M("settings.projects"),
	"compute":  locale.M("compute.title"),
}

// SettingsSection returns the handler of the page of one section of the
// preferences (GET /settings/science, /settings/projects,
// /settings/compute), which its POST route redirects to (?saved=1).
func (a *Settings) SettingsSection(section string) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, _, err := a.prefsForm(r)
		if err != nil {
			return err
		}
		d := views.SettingsSectionPage{Section: section, Form: f}
		if r.URL.Query().Get("saved") != "" {
			d.Saved = savedMessage(r, section)
		}
		return a.renderSection(w, r, http.StatusOK, d)
	}
}

func (a *Settings) renderSection(w http.ResponseWriter, r *http.Request, status int, d views.SettingsSectionPage) error {
	a.render(w, r, status, views.SettingsSection(a.volunteerPage(r, sectionTitles[d.Section].In(locale.From(r.Context())), "settings"), d))
	return nil
}

// savePrefs runs save; a validation error re-renders the section's page
// with 422, the field messages and what keep puts back of the posted values
// (nil: nothing); success redirects (303) to the section's page.
func (a *Settings) savePrefs(w http.ResponseWriter, r *http.Request, section string, save func() error,
	keep func(*views.PrefsForm)) error {
	err := save()
	var invalid *accounting.ValidationError
	if errors.As(err, &invalid) {
		f, _, ferr := a.prefsForm(r)
		if ferr != nil {
			return ferr
		}
		f.Errors = views.Fields(invalid.Fields)
		if keep != nil {
			keep(&f)
		}
		return a.renderSection(w, r, http.StatusUnprocessableEntity, views.SettingsSectionPage{Section: section, Form: f})
	}
	if err != nil {
		return err
	}
	to := "/settings/" + section + "?saved=1"
	if loc := r.PostForm.Get("location"); section == "compute" && loc != "" && loc != accounting.DefaultLocation {
		to += "&location=" + url.QueryEscape(loc)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// SettingsScience saves the keyword answers (POST /settings/science).
// Form fields: "kw-ID" = yes | maybe | no, for BOINC keyword ID; keywords
// left out become maybe.
func (a *Settings) SettingsScience(w http.ResponseWriter, r *http.Request) error {
	formErr := parseForm(r) // a field that is not text is the field's error
	if formErr != nil && formErrors(formErr) == nil {
		return formErr
	}
	choices, bad := formChoices[int, accounting.KeywordAnswer](r, "kw-", strconv.Atoi)
	return a.savePrefs(w, r, "science", func() error {
		if formErr != nil {
			return formErr
		}
		if bad {
			return &accounting.ValidationError{Fields: map[string]locale.Msg{"keyword": locale.M("science.unknown_area")}}
		}
		return a.computers.SetKeywordChoices(r.Context(), currentUser(r).ID, choices)
	}, nil)
}

// SettingsProjects saves the per-project choices (POST /settings/projects).
// Form fields: "project-ID" = always | automatic | never, for catalog
// project ID; projects left out become automatic.
func (a *Settings) SettingsProjects(w http.ResponseWriter, r *http.Request) error {
	formErr := parseForm(r) // a field that is not text is the field's error
	if formErr != nil && formErrors(formErr) == nil {
		return formErr
	}
	choices, bad := formChoices[int64, string](r, "project-", func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
	return a.savePrefs(w, r, "projects", func() error {
		if formErr != nil {
			return formErr
		}
		if bad {
			return &accounting.ValidationError{Fields: map[string]locale.Msg{"project": locale.M("computer.choose_listed")}}
		}
		return a.computers.SetProjectChoices(r.Context(), currentUser(r).ID, choices)
	}, nil)
}

// formChoices reads the posted fields named prefix+ID, one value each;
// bad says some other field, or a malformed one, was posted.
func formChoices[K comparable, V ~string](r *http.Request, prefix string, parse func(string) (K, error)) (map[K]V, bool) {
	choices, bad := map[K]V{}, false
	for key, vals := range r.PostForm {
		rest, ok := strings.CutPrefix(key, prefix)
		id, err := parse(rest)
		if !ok || err != nil || len(vals) != 1 {
			bad = true
			continue
		}
		choices[id] = V(vals[0])
	}
	return choices, bad
}

// SettingsCompute saves the compute preset of a location (POST
// /settings/compute). Form fields: "location", one of the volunteer's
// locations (empty or absent: Default); "preset" = standard | low_power | maximum | custom; with
// custom, the numbers max_ncpus_pct, cpu_usage_limit, start_hour, end_hour,
// disk_max_used_gb, disk_max_used_pct, ram_max_used_busy_pct,
// ram_max_used_idle_pct, and the checkboxes (value 1) run_if_user_active,
// run_gpu_if_user_active, run_on_batteries.
func (a *Settings) SettingsCompute(w http.ResponseWriter, r *http.Request) error {
	formErr := parseForm(r) // a field that is not text is the field's error
	if formErr != nil && formErrors(formErr) == nil {
		return formErr
	}
	preset := r.PostForm.Get("preset")
	c, bad := customPrefs(r)
	return a.savePrefs(w, r, "compute", func() error {
		if formErr != nil {
			return formErr
		}
		if preset == accounting.PresetCustom && len(bad) > 0 {
			return &accounting.ValidationError{Fields: bad}
		}
		return a.computers.SetLocationPrefs(r.Context(), currentUser(r).ID, r.PostForm.Get("location"), preset, c)
	}, func(f *views.PrefsForm) { f.Preset, f.Compute = preset, c })
}

// customPrefs reads the custom values; bad maps unreadable fields to messages.
func customPrefs(r *http.Request) (accounting.ComputePrefs, map[string]locale.Msg) {
	bad := map[string]locale.Msg{}
	num := func(name string) float64 {
		s := strings.TrimSpace(r.PostForm.Get(name))
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !utf8.ValidString(s) {
			bad[name] = locale.M("compute.not_a_number")
		}
		return f
	}
	on := func(name string) bool { return r.PostForm.Get(name) == "1" }
	c := accounting.ComputePrefs{MaxCPUsPct: num("max_ncpus_pct"), CPUTimePct: num("cpu_usage_limit"),
		RunIfUserActive: on("run_if_user_active"), RunGPUIfUserActive: on("run_gpu_if_user_active"),
		RunOnBatteries: on("run_on_batteries"), StartHour: num("start_hour"), EndHour: num("end_hour"),
		DiskMaxGB: num("disk_max_used_gb"), DiskMaxPct: num("disk_max_used_pct"),
		RAMBusyPct: num("ram_max_used_busy_pct"), RAMIdlePct: num("ram_max_used_idle_pct")}
	return c, bad
}
