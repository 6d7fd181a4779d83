package reconcile

import (
	"log/slog"
	"time"
)

// Options tune reconciliation and its reports. A zero field takes
// its value in DefaultOptions, except Every, whose zero means no
// periodic runs.
type Options struct {
	// Every is how often each project is reconciled by the server's
	// periodic round (RunDue); zero turns the round off, and projects are
	// reconciled on demand only. Cobble's command
	// line runs it every DefaultOptions().Every unless told
	// otherwise.
	Every   time.Duration
	Timeout time.Duration // the longest one run may take
	// Downloads: no byte for StallTimeout fails a file, so does taking
	// longer than FileTimeout or holding more than MaxBytes once
	// decompressed. Only AllowPrivate lets them reach loopback,
	// link-local and private addresses.
	StallTimeout time.Duration
	FileTimeout  time.Duration
	MaxBytes     int64
	AllowPrivate bool
	// Workers is how many projects RunDue reconciles at once.
	Workers    int
	Window     time.Duration // trailing window of the ratios
	RatioLow   float64       // a host below this × its project's median ratio is flagged
	RatioHigh  float64       // a host above this × the median is flagged
	StaleAfter time.Duration // an export older than this is stale
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
	// Observe, when set, is told each run's outcome and duration (metrics).
	Observe func(status RunStatus, took time.Duration)
	// Log, when set, is told how the runs Start began ended.
	Log *slog.Logger
}

// DefaultOptions are the options Cobble reconciles with unless
// told otherwise: every 6 h, runs of at most 1 h, downloads that stall
// for 60 s, take 30 min or hold 20 GB failing, 4 projects at once, ratios
// over 30 days flagged below 0.5 and above 2 × the median, exports stale
// after 3 days.
func DefaultOptions() Options {
	return Options{Every: 6 * time.Hour, Timeout: time.Hour,
		StallTimeout: time.Minute, FileTimeout: 30 * time.Minute, MaxBytes: 20e9, Workers: 4,
		Window: 30 * 24 * time.Hour, RatioLow: 0.5, RatioHigh: 2, StaleAfter: 3 * 24 * time.Hour,
		Now: time.Now}
}

// withDefaults fills each zero field but Every from
// DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	or := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	or(&o.Timeout, d.Timeout)
	or(&o.StallTimeout, d.StallTimeout)
	or(&o.FileTimeout, d.FileTimeout)
	or(&o.Window, d.Window)
	or(&o.StaleAfter, d.StaleAfter)
	if o.MaxBytes <= 0 {
		o.MaxBytes = d.MaxBytes
	}
	if o.Workers <= 0 {
		o.Workers = d.Workers
	}
	if o.RatioLow <= 0 {
		o.RatioLow = d.RatioLow
	}
	if o.RatioHigh <= 0 {
		o.RatioHigh = d.RatioHigh
	}
	if o.Now == nil {
		o.Now = d.Now
	}
	o.Every = max(o.Every, 0)
	return o
}
