package boinc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Validators identify one version of an export file, for conditional GET.
type Validators struct {
	ETag         string
	LastModified string
}

var (
	// ErrExportUnchanged means the file has not changed since the version
	// the given validators name (HTTP 304).
	ErrExportUnchanged = errors.New("export file unchanged")
	// ErrExportMissing means the source has no such file (HTTP 404 or 410,
	// or no such local file).
	ErrExportMissing = errors.New("export file missing")
)

// ExportSource opens the files of a project's credit export by name
// (tables.xml, host.gz, host_0.gz, ...).
type ExportSource interface {
	// Open returns the file and its validators. Given the validators of a
	// version already read it may return ErrExportUnchanged; a file the
	// source does not have is ErrExportMissing. The caller closes the file.
	Open(ctx context.Context, name string, prev Validators) (io.ReadCloser, Validators, error)
}

// StatsSource fetches export files over HTTP from a project's stats URL.
type StatsSource struct {
	base     string
	client   *http.Client
	maxBytes int64
}

// maxRedirects is how many redirects a download follows.
const maxRedirects = 5

// NewStatsSource returns a source reading files under statsURL (ending in
// "/"). Each download is bounded by timeout and maxBytes; it follows at
// most five redirects.
func NewStatsSource(statsURL string, timeout time.Duration, maxBytes int64) *StatsSource {
	if !strings.HasSuffix(statsURL, "/") {
		statsURL += "/"
	}
	client := &http.Client{
		Timeout: timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return nil
		},
	}
	return &StatsSource{base: statsURL, client: client, maxBytes: maxBytes}
}

// Open implements ExportSource with a conditional GET.
func (s *StatsSource) Open(ctx context.Context, name string, prev Validators) (io.ReadCloser, Validators, error) {
	url := s.base + name
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, Validators{}, err
	}
	req.Header.Set("User-Agent", "Cobble account manager (credit reconciliation)")
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, Validators{}, fmt.Errorf("get %s: %w", url, err)
	}
	v := Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	switch {
	case resp.StatusCode == http.StatusOK:
		return &limitedBody{body: resp.Body, left: s.maxBytes, url: url}, v, nil
	case resp.StatusCode == http.StatusNotModified:
		err = ErrExportUnchanged
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		err = fmt.Errorf("get %s: %w (HTTP %d)", url, ErrExportMissing, resp.StatusCode)
	default:
		err = fmt.Errorf("get %s: HTTP %d", url, resp.StatusCode)
	}
	resp.Body.Close()
	return nil, v, err
}

// limitedBody fails a download that grows beyond its limit, rather than
// cutting it short silently.
type limitedBody struct {
	body io.ReadCloser
	left int64
	url  string
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("get %s: larger than the download limit", l.url)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.body.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.body.Close() }

// FileSource reads a host export from a local file, standing in for a
// download: the file is the host export whatever name is asked for, except
// that tables.xml is read from beside it when it is there.
type FileSource struct {
	HostFile string
}

// Open implements ExportSource. Validators carry the file's modification
// time; local files are never reported unchanged.
func (f FileSource) Open(ctx context.Context, name string, prev Validators) (io.ReadCloser, Validators, error) {
	path := f.HostFile
	if name == "tables.xml" {
		path = filepath.Join(filepath.Dir(f.HostFile), "tables.xml")
	} else if name != "host.gz" {
		return nil, Validators{}, fmt.Errorf("%s: %w", name, ErrExportMissing)
	}
	file, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Validators{}, fmt.Errorf("%s: %w", path, ErrExportMissing)
	}
	if err != nil {
		return nil, Validators{}, err
	}
	var v Validators
	if st, err := file.Stat(); err == nil {
		v.LastModified = st.ModTime().UTC().Format(http.TimeFormat)
	}
	return file, v, nil
}
