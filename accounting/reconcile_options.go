package accounting

import "time"

// ReconcileOptions tune reconciliation and its reports.
type ReconcileOptions struct {
	Every   time.Duration // how often each project is reconciled (default 6 h)
	Timeout time.Duration // the longest one run may take (default 1 h)
	// Downloads: no byte for StallTimeout fails a file (default 60 s), so
	// does taking longer than FileTimeout (default 30 min) or holding more
	// than MaxBytes once decompressed (default 20 GB). Only AllowPrivate
	// lets them reach loopback, link-local and private addresses.
	StallTimeout time.Duration
	FileTimeout  time.Duration
	MaxBytes     int64
	AllowPrivate bool
	// Workers is how many projects RunDue reconciles at once (default 4).
	Workers    int
	Window     time.Duration // trailing window of the ratios (default 30 days)
	RatioLow   float64       // a host below this × its project's median ratio is flagged (default 0.5)
	RatioHigh  float64       // a host above this × the median is flagged (default 2)
	StaleAfter time.Duration // an export older than this is stale (default 3 days)
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
	// Observe, when set, is told each run's outcome and duration (metrics).
	Observe func(status RunStatus, took time.Duration)
}

func (o ReconcileOptions) withDefaults() ReconcileOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Every, 6*time.Hour)
	def(&o.Timeout, time.Hour)
	def(&o.Window, 30*24*time.Hour)
	def(&o.StaleAfter, 3*24*time.Hour)
	def(&o.StallTimeout, time.Minute)
	def(&o.FileTimeout, 30*time.Minute)
	if o.MaxBytes <= 0 {
		o.MaxBytes = 20e9
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.RatioLow <= 0 {
		o.RatioLow = 0.5
	}
	if o.RatioHigh <= 0 {
		o.RatioHigh = 2
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
