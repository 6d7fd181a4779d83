package boinc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	base   string
	client *http.Client
	limits DownloadLimits
}

// DownloadLimits bound each file a StatsSource downloads.
type DownloadLimits struct {
	// Stall fails a download that receives no byte for this long,
	// waiting for the reply included (default 60 s).
	Stall time.Duration
	// File fails a download that takes longer than this (default 30 min).
	File time.Duration
	// MaxBytes fails a download whose body is larger (default 20 GB).
	MaxBytes int64
	// AllowPrivate lets downloads connect to loopback, link-local,
	// private, unspecified and multicast addresses, which are refused
	// otherwise.
	AllowPrivate bool
}

func (l DownloadLimits) withDefaults() DownloadLimits {
	if l.Stall <= 0 {
		l.Stall = time.Minute
	}
	if l.File <= 0 {
		l.File = 30 * time.Minute
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 20e9
	}
	return l
}

// maxRedirects is how many redirects a download follows.
const maxRedirects = 5

// NewStatsSource returns a source reading files under statsURL (ending in
// "/"), each download bounded by limits. It follows at most five
// redirects, each to an http or https URL; the address actually
// connected to, after every redirect and name lookup, must be public
// unless limits.AllowPrivate.
func NewStatsSource(statsURL string, limits DownloadLimits) *StatsSource {
	if !strings.HasSuffix(statsURL, "/") {
		statsURL += "/"
	}
	limits = limits.withDefaults()
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if !limits.AllowPrivate {
		dialer.Control = refusePrivate
	}
	client := &http.Client{
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			ForceAttemptHTTP2:   true,
			TLSHandshakeTimeout: 30 * time.Second,
			MaxIdleConns:        4,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return checkScheme(req.URL.String())
		},
	}
	return &StatsSource{base: statsURL, client: client, limits: limits}
}

// Open implements ExportSource with a conditional GET.
func (s *StatsSource) Open(ctx context.Context, name string, prev Validators) (io.ReadCloser, Validators, error) {
	url := s.base + name
	if err := checkScheme(url); err != nil {
		return nil, Validators{}, fmt.Errorf("get %s: %w", url, err)
	}
	ctx, release, watch := s.bound(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		release()
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
		err = fmt.Errorf("get %s: %w", url, causeOf(ctx, err))
		release()
		return nil, Validators{}, err
	}
	v := Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	switch {
	case resp.StatusCode == http.StatusOK:
		return &boundedBody{body: resp.Body, left: s.limits.MaxBytes, url: url, ctx: ctx,
			stall: s.limits.Stall, watch: watch, release: release}, v, nil
	case resp.StatusCode == http.StatusNotModified:
		err = ErrExportUnchanged
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		err = fmt.Errorf("get %s: %w (HTTP %d)", url, ErrExportMissing, resp.StatusCode)
	default:
		err = fmt.Errorf("get %s: HTTP %d", url, resp.StatusCode)
	}
	resp.Body.Close()
	release()
	return nil, v, err
}

// bound returns ctx limited to the file timeout and cancelled by the
// stall watch, which the caller resets whenever bytes arrive; release
// stops both.
func (s *StatsSource) bound(ctx context.Context) (context.Context, func(), *time.Timer) {
	ctx, stalled := context.WithCancelCause(ctx)
	ctx, cancel := context.WithTimeoutCause(ctx, s.limits.File, fmt.Errorf("took longer than %v", s.limits.File))
	watch := time.AfterFunc(s.limits.Stall, func() { stalled(fmt.Errorf("no data for %v", s.limits.Stall)) })
	return ctx, func() {
		watch.Stop()
		cancel()
		stalled(nil)
	}, watch
}

// causeOf returns why ctx ended when it did, else err.
func causeOf(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// checkScheme refuses a URL that is not http or https.
func checkScheme(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q is not an http or https URL", rawURL)
	}
	return nil
}

// refusePrivate is a net.Dialer.Control that refuses to connect to an
// address that is not public: it sees the address actually dialled, after
// the name lookup, so a name that resolves to one is refused too.
func refusePrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsPrivate() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return fmt.Errorf("refusing to download from %s: a loopback, link-local, private or multicast address", ip)
	}
	return nil
}

// boundedBody is a download's body that fails when it grows beyond its
// limit (rather than being cut short silently), when no byte arrives for
// the stall time, or when the file takes too long.
type boundedBody struct {
	body    io.ReadCloser
	left    int64
	url     string
	ctx     context.Context
	stall   time.Duration
	watch   *time.Timer
	release func()
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("get %s: larger than the download limit", b.url)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if n > 0 {
		b.watch.Reset(b.stall)
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("get %s: %w", b.url, causeOf(b.ctx, err))
	}
	return n, err
}

func (b *boundedBody) Close() error {
	b.release()
	return b.body.Close()
}

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
