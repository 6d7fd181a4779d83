package main

import (
	"flag"
	"fmt"
	"net/netip"
	"time"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/web"
)

// limitFlags are the server flags that bound what requests and background
// work may take.
type limitFlags struct {
	requestTimeout time.Duration
	workers        int
	signups        int
	apiPerMinute   int
	proxies        []netip.Prefix
	exports        exportFlags
}

// exportFlags bound the downloads of credit exports, for the server and
// for 'cobble reconcile'.
type exportFlags struct {
	stall, file  time.Duration
	maxBytes     int64
	allowPrivate bool
}

// register adds the limit flags to fs, with defaults from the environment.
func (f *limitFlags) register(fs *flag.FlagSet, env environment) error {
	b := &binder{fs: fs, env: env}
	optRequestTimeout.to(b, &f.requestTimeout)
	optReconcileWorkers.to(b, &f.workers)
	optSignupLimit.to(b, &f.signups)
	optAPILimit.to(b, &f.apiPerMinute)
	optTrustedProxy.to(b, f.addProxy)
	if b.err != nil {
		return b.err
	}
	return f.exports.register(fs, env)
}

// addProxy adds a trusted proxy given as an address or a CIDR.
func (f *limitFlags) addProxy(s string) error {
	if p, err := netip.ParsePrefix(s); err == nil {
		f.proxies = append(f.proxies, p.Masked())
		return nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return fmt.Errorf("%q is not an IP address or CIDR", s)
	}
	a = a.Unmap()
	f.proxies = append(f.proxies, netip.PrefixFrom(a, a.BitLen()))
	return nil
}

// register adds the export download flags to fs.
func (f *exportFlags) register(fs *flag.FlagSet, env environment) error {
	b := &binder{fs: fs, env: env}
	optExportStallTimeout.to(b, &f.stall)
	optExportFileTimeout.to(b, &f.file)
	optExportMaxBytes.to(b, &f.maxBytes)
	optAllowPrivateExports.to(b, &f.allowPrivate)
	return b.err
}

// apply checks the export flags and sets them in o.
func (f *exportFlags) apply(o *reconcile.Options) error {
	if f.stall < time.Second || f.file < time.Second || f.maxBytes < 1<<20 {
		return fmt.Errorf("%w: --export-stall-timeout and --export-file-timeout must be "+
			"at least 1s, --export-max-bytes at least 1048576", errUsage)
	}
	o.StallTimeout, o.FileTimeout, o.MaxBytes, o.AllowPrivate = f.stall, f.file, f.maxBytes, f.allowPrivate
	return nil
}

// apply checks the limit flags and sets them in cfg.
func (f *limitFlags) apply(cfg *web.Config) error {
	if f.requestTimeout < time.Second || f.requestTimeout > 10*time.Minute {
		return fmt.Errorf("%w: --request-timeout must be between 1s and 10m", errUsage)
	}
	cfg.RequestTimeout = f.requestTimeout
	if f.workers < 1 || f.workers > 64 {
		return fmt.Errorf("%w: --reconcile-workers must be between 1 and 64", errUsage)
	}
	if f.signups < 1 {
		return fmt.Errorf("%w: --signup-limit must be at least 1", errUsage)
	}
	if f.apiPerMinute < 1 {
		return fmt.Errorf("%w: --api-limit must be at least 1", errUsage)
	}
	cfg.SignupsPerHour, cfg.TrustedProxies, cfg.APIPerMinute = f.signups, f.proxies, f.apiPerMinute
	cfg.Reconcile.Workers = f.workers
	return f.exports.apply(&cfg.Reconcile)
}
