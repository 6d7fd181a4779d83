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
	timeout, err := envDuration(env, "COBBLE_REQUEST_TIMEOUT", web.DefaultRequestTimeout)
	if err != nil {
		return err
	}
	fs.DurationVar(&f.requestTimeout, "request-timeout", timeout,
		"the longest one request may take; past it the request answers 503 (env COBBLE_REQUEST_TIMEOUT)")
	workers, err := envInt(env, "COBBLE_RECONCILE_WORKERS", reconcile.DefaultOptions().Workers)
	if err != nil {
		return err
	}
	fs.IntVar(&f.workers, "reconcile-workers", workers,
		"how many projects the periodic reconciliation works on at once (env COBBLE_RECONCILE_WORKERS)")
	if err := f.registerClients(fs, env); err != nil {
		return err
	}
	return f.exports.register(fs, env)
}

// registerClients adds the flags about client addresses: the trusted
// proxies and the sign-up limit.
func (f *limitFlags) registerClients(fs *flag.FlagSet, env environment) error {
	signups, err := envInt(env, "COBBLE_SIGNUP_LIMIT", 20)
	if err != nil {
		return err
	}
	fs.IntVar(&f.signups, "signup-limit", signups, "how many accounts one address may create in an hour (env COBBLE_SIGNUP_LIMIT)")
	api, err := envInt(env, "COBBLE_API_LIMIT", web.DefaultAPIPerMinute)
	if err != nil {
		return err
	}
	fs.IntVar(&f.apiPerMinute, "api-limit", api, "how many API requests one token may send in a minute (env COBBLE_API_LIMIT)")
	for _, p := range splitList(env.getenv("COBBLE_TRUSTED_PROXY")) {
		if err := f.addProxy(p); err != nil {
			return fmt.Errorf("%w: COBBLE_TRUSTED_PROXY: %v", errUsage, err)
		}
	}
	fs.Func("trusted-proxy", "an `address or CIDR` of a proxy whose X-Forwarded-For names the client; "+
		"repeat it, or separate several with commas (env COBBLE_TRUSTED_PROXY)", func(s string) error {
		for _, p := range splitList(s) {
			if err := f.addProxy(p); err != nil {
				return err
			}
		}
		return nil
	})
	return nil
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
	def := reconcile.DefaultOptions()
	stall, err := envDuration(env, "COBBLE_EXPORT_STALL_TIMEOUT", def.StallTimeout)
	if err != nil {
		return err
	}
	file, err := envDuration(env, "COBBLE_EXPORT_FILE_TIMEOUT", def.FileTimeout)
	if err != nil {
		return err
	}
	maxBytes, err := envInt(env, "COBBLE_EXPORT_MAX_BYTES", int(def.MaxBytes))
	if err != nil {
		return err
	}
	fs.DurationVar(&f.stall, "export-stall-timeout", stall,
		"an export download that receives no byte for this long fails (env COBBLE_EXPORT_STALL_TIMEOUT)")
	fs.DurationVar(&f.file, "export-file-timeout", file,
		"the longest one export file may take to download and scan (env COBBLE_EXPORT_FILE_TIMEOUT)")
	fs.Int64Var(&f.maxBytes, "export-max-bytes", int64(maxBytes),
		"the most `bytes` one export file may hold once decompressed (env COBBLE_EXPORT_MAX_BYTES)")
	fs.BoolVar(&f.allowPrivate, "allow-private-exports", env.getenv("COBBLE_ALLOW_PRIVATE_EXPORTS") == "true",
		"let export downloads reach loopback, link-local and private addresses (env COBBLE_ALLOW_PRIVATE_EXPORTS=true)")
	return nil
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
