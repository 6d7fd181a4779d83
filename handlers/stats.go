package handlers

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// Cobble's statistics export, for statistics sites (docs/STATISTICS.md):
// the files the newest export holds, with their ETag and build time, so
// that a site downloads a file only when it changed.

// statsMaxAge is how long a file may be cached: the export is built once
// a day.
const statsMaxAge = "max-age=3600"

// statsDownload bounds a download of the largest file by a slow site,
// beyond the pages' request deadline and the server's write timeout.
const statsDownload = 10 * time.Minute

// StatsFile serves a file of the statistics export (GET and HEAD
// /stats/{file}: tables.xml, user.gz, team.gz, host.gz): 304 when the
// request's If-None-Match names its ETag or, without one, its
// If-Modified-Since is not before its build; 404 for another name or
// before the first export.
func (a *Stats) StatsFile(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), statsDownload)
	defer cancel()
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(statsDownload))
	started := false
	err := a.stats.ReadStatsFile(ctx, r.PathValue("file"), func(f accounting.StatsFile) (io.Writer, error) {
		started = true
		h := w.Header()
		h.Set("Cache-Control", "public, "+statsMaxAge)
		h.Set("ETag", f.ETag)
		h.Set("Last-Modified", f.BuiltAt.UTC().Format(http.TimeFormat))
		if statsUnchanged(r, f) {
			w.WriteHeader(http.StatusNotModified)
			return nil, nil
		}
		h.Set("Content-Type", "application/gzip")
		if strings.HasSuffix(f.Name, ".xml") {
			h.Set("Content-Type", "application/xml; charset=utf-8")
		}
		h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return nil, nil
		}
		return w, nil
	})
	if err != nil && started {
		// The answer has begun: the client sees a short body.
		a.log.Warn("statistics export: serving a file", "file", r.PathValue("file"), "err", err)
		return nil
	}
	return err
}

// statsUnchanged reports whether the request's validators match f.
func statsUnchanged(r *http.Request, f accounting.StatsFile) bool {
	if match := r.Header.Get("If-None-Match"); match != "" {
		return etagMatches(match, f.ETag)
	}
	since, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && !f.BuiltAt.Truncate(time.Second).After(since)
}
