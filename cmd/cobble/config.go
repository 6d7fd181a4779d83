package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/web"
)

// serverFlags are the flags of the commands that serve.
type serverFlags struct {
	addr, baseURL, name string
	repeatSec           float64
	maxProjects         int
	reconcileEvery      time.Duration
	ratioWindow         time.Duration
	ratioLow, ratioHigh float64
	metricsAddr         string
	detailMonths        int
	adminTwoFactor      string
	limits              limitFlags
	failing             failingFlags
	mail                mailFlags
	log                 logFlags
}

// register adds the server flags to fs, with defaults from the environment.
func (f *serverFlags) register(fs *flag.FlagSet, env environment) error {
	b := &binder{fs: fs, env: env}
	optAddr.to(b, &f.addr)
	optBaseURL.to(b, &f.baseURL)
	optMetricsAddr.to(b, &f.metricsAddr)
	optName.to(b, &f.name)
	optRepeatSec.to(b, &f.repeatSec)
	optMaxProjects.to(b, &f.maxProjects)
	optLedgerDetailMonths.to(b, &f.detailMonths)
	optReconcileEvery.to(b, &f.reconcileEvery)
	optAdminTwoFactor.to(b, &f.adminTwoFactor)
	optRatioWindow.to(b, &f.ratioWindow)
	optRatioLow.to(b, &f.ratioLow)
	optRatioHigh.to(b, &f.ratioHigh)
	if b.err != nil {
		return b.err
	}
	if err := f.limits.register(fs, env); err != nil {
		return err
	}
	if err := f.failing.register(fs, env); err != nil {
		return err
	}
	if err := f.mail.register(fs, env); err != nil {
		return err
	}
	return f.log.register(fs, env)
}

func envDuration(env environment, key string, def time.Duration) (time.Duration, error) {
	v := env.getenv(key)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q is not a duration like 6h or 30m", errUsage, key, v)
	}
	return d, nil
}

// config checks the flags and returns the server configuration.
func (f *serverFlags) config() (web.Config, error) {
	if err := f.checkAddrs(); err != nil {
		return web.Config{}, err
	}
	base := f.baseURL
	if base == "" {
		// Clients cannot reach "every address": the default base URL needs
		// a host they can use.
		host, _, _ := net.SplitHostPort(f.addr)
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			return web.Config{}, fmt.Errorf("%w: --addr %q listens on every address, which is no URL for clients; "+
				"set --base-url to the URL they reach Cobble at", errUsage, f.addr)
		}
		base = "http://" + f.addr + "/"
	}
	base, err := checkBaseURL(base)
	if err != nil && f.baseURL == "" {
		return web.Config{}, fmt.Errorf("%w: --addr %q gives no URL BOINC clients accept (they need a host with a dot, "+
			"such as 127.0.0.1); set --base-url", errUsage, f.addr)
	}
	if err != nil {
		return web.Config{}, err
	}
	// Written so that NaN, which fails every comparison, is refused too.
	if !(f.repeatSec >= 60 && f.repeatSec <= 7*86400) {
		return web.Config{}, fmt.Errorf("%w: --repeat-sec must be between 60 and 604800", errUsage)
	}
	if f.maxProjects < 2 || f.maxProjects > 50 {
		return web.Config{}, fmt.Errorf("%w: --max-projects must be between 2 and 50", errUsage)
	}
	if f.detailMonths < 0 || f.detailMonths > 1200 {
		return web.Config{}, fmt.Errorf("%w: --ledger-detail-months must be between 0 (keep everything) and 1200", errUsage)
	}
	if f.reconcileEvery < 0 || (f.reconcileEvery > 0 && f.reconcileEvery < time.Minute) {
		return web.Config{}, fmt.Errorf("%w: --reconcile-every must be 0 or at least 1m", errUsage)
	}
	if !(f.ratioWindow >= 24*time.Hour && f.ratioLow > 0 && f.ratioLow < 1 && f.ratioHigh > 1 && f.ratioHigh < 1e6) {
		return web.Config{}, fmt.Errorf("%w: --ratio-window must be at least 24h, --ratio-low between 0 and 1, "+
			"--ratio-high above 1", errUsage)
	}
	if f.adminTwoFactor != web.AdminTwoFactorRequired && f.adminTwoFactor != web.AdminTwoFactorOptional {
		return web.Config{}, fmt.Errorf("%w: --admin-two-factor must be required or optional, not %q", errUsage, f.adminTwoFactor)
	}
	cfg := web.Config{Site: web.Site{Name: f.name, BaseURL: base, RepeatSec: f.repeatSec, Version: readVersion().String()},
		AdminTwoFactor: f.adminTwoFactor, MaxProjects: f.maxProjects, PasswordCost: passwordCost,
		Reconcile:   reconcile.Options{Every: f.reconcileEvery, Window: f.ratioWindow, RatioLow: f.ratioLow, RatioHigh: f.ratioHigh},
		MetricsAddr: f.metricsAddr, LedgerDetailMonths: f.detailMonths}
	return cfg, f.apply(&cfg)
}

// apply checks the mail, limit, failing and log flags and sets them in cfg.
func (f *serverFlags) apply(cfg *web.Config) error {
	if err := f.mail.apply(cfg); err != nil {
		return err
	}
	if err := f.limits.apply(cfg); err != nil {
		return err
	}
	if err := f.failing.apply(cfg); err != nil {
		return err
	}
	return f.log.apply(cfg)
}

// checkAddrs checks that --addr, and --metrics-addr when given, are host:port.
func (f *serverFlags) checkAddrs() error {
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return fmt.Errorf("%w: --addr %q is not host:port", errUsage, f.addr)
	}
	if _, _, err := net.SplitHostPort(f.metricsAddr); f.metricsAddr != "" && err != nil {
		return fmt.Errorf("%w: --metrics-addr %q is not host:port", errUsage, f.metricsAddr)
	}
	return nil
}

// checkBaseURL applies the BOINC client's rules for an AM URL: http or https,
// a host with a dot (so not "localhost"), a trailing slash.
func checkBaseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: --base-url %q is not an http:// or https:// URL", errUsage, s)
	}
	if !strings.Contains(u.Hostname(), ".") {
		return "", fmt.Errorf("%w: --base-url %q: BOINC clients reject a host without a dot; use 127.0.0.1 instead of localhost",
			errUsage, s)
	}
	if !strings.HasSuffix(s, "/") {
		s += "/"
	}
	return s, nil
}

func envOr(env environment, key, def string) string {
	if v := env.getenv(key); v != "" {
		return v
	}
	return def
}

func envFloat(env environment, key string, def float64) (float64, error) {
	v := env.getenv(key)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q is not a number", errUsage, key, v)
	}
	return f, nil
}

func envInt(env environment, key string, def int) (int, error) {
	v := env.getenv(key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q is not a whole number", errUsage, key, v)
	}
	return n, nil
}

// parseFlags parses args into fs, mapping flag errors to usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}
