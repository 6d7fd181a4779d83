package main

import (
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/web"
)

// option is one setting of Cobble's commands, declared once (declare,
// below): the flag and the environment variable that set it, its default
// and its help, and the commands that take it. Each command registers its
// flags from these declarations (setting.to, which takes only a pointer of
// the option's type), and tests check README.md's flag table and
// deploy/cobble.env against them.
type option struct {
	flag string // the flag's name without dashes; "" for a variable alone
	env  string // its environment variable; "" for a flag alone
	// def is the default: a string, int, int64, float64, bool or
	// time.Duration; nil for an option whose flag is a list.
	def  any
	help string // as package flag shows it: a `word` in it names the value
	cmds []string
}

// The commands that take the options of serving, and of the downloads of
// credit exports.
var (
	serving   = []string{"serve", "dev"}
	exporting = []string{"serve", "dev", "reconcile"}
)

// failing are the failing-computer warnings' default thresholds.
var failing = accounting.DefaultFailingThresholds()

// Cobble's options, each declared once. The defaults of reconciliation are
// reconcile.DefaultOptions's, and those of the server web's.
var (
	optDatabaseURL = declare("", "DATABASE_URL", "", "the PostgreSQL `URL` of Cobble's database",
		[]string{"serve", "migrate", "user", "project", "reconcile", "ledger"})
	optAddr        = declare("addr", "COBBLE_ADDR", "127.0.0.1:8080", "`host:port` to listen on", serving)
	optBaseURL     = declare("base-url", "COBBLE_BASE_URL", "", "the `URL` BOINC clients use, ending in / (default http://ADDR/)", serving)
	optMetricsAddr = declare("metrics-addr", "COBBLE_METRICS_ADDR", "",
		"`host:port` to serve Prometheus /metrics on, apart from the site (default: off)", serving)
	optName               = declare("name", "COBBLE_NAME", "Cobble", "the account manager's `name`", serving)
	optRepeatSec          = declare("repeat-sec", "COBBLE_REPEAT_SEC", float64(6*3600), "`seconds` between a client's RPCs", serving)
	optMaxProjects        = declare("max-projects", "COBBLE_MAX_PROJECTS", 4, "the most projects one host works for", serving)
	optLedgerDetailMonths = declare("ledger-detail-months", "COBBLE_LEDGER_DETAIL_MONTHS", 0, "`months` before the current one whose per-computer "+
		"ledger rows are kept; older months keep per-volunteer totals only; 0 = keep everything", serving)
	optReconcileEvery = declare("reconcile-every", "COBBLE_RECONCILE_EVERY", reconcile.DefaultOptions().Every,
		"how often each project is reconciled with its credit export; 0 = only on demand (cobble dev: 0)", serving)
	optAdminTwoFactor = declare("admin-two-factor", "COBBLE_ADMIN_TWO_FACTOR", web.AdminTwoFactorRequired,
		"`required` (an admin without two-factor sign-in is sent to enrol before any admin page) or optional "+
			"(cobble dev: optional)", serving)
	optRatioWindow = declare("ratio-window", "COBBLE_RATIO_WINDOW", reconcile.DefaultOptions().Window,
		"trailing window of granted ÷ estimated ratios", serving)
	optRatioLow = declare("ratio-low", "COBBLE_RATIO_LOW", reconcile.DefaultOptions().RatioLow,
		"flag a host whose ratio is below this × its project's median", serving)
	optRatioHigh = declare("ratio-high", "COBBLE_RATIO_HIGH", reconcile.DefaultOptions().RatioHigh,
		"flag a host whose ratio is above this × its project's median", serving)
	optRequestTimeout = declare("request-timeout", "COBBLE_REQUEST_TIMEOUT", web.DefaultRequestTimeout,
		"the longest one request may take; past it the request answers 503", serving)
	optReconcileWorkers = declare("reconcile-workers", "COBBLE_RECONCILE_WORKERS", reconcile.DefaultOptions().Workers,
		"how many projects the periodic reconciliation works on at once", serving)
	optSignupLimit = declare("signup-limit", "COBBLE_SIGNUP_LIMIT", web.DefaultSignupsPerHour,
		"how many accounts one address may create in an hour", serving)
	optAPILimit = declare("api-limit", "COBBLE_API_LIMIT", web.DefaultAPIPerMinute,
		"how many API requests one token may send in a minute", serving)
	optFailingWindow = declare("failing-window", "COBBLE_FAILING_WINDOW", failing.Window,
		"how far back a computer's failed jobs are counted for the failing warning", serving)
	optFailingMinJobs = declare("failing-min-jobs", "COBBLE_FAILING_MIN_JOBS", failing.MinFailed,
		"the fewest failed jobs in that window that make a computer failing on a project", serving)
	optFailingShare = declare("failing-share", "COBBLE_FAILING_SHARE", failing.FailedShare,
		"the share of failed jobs among all jobs in that window at which a computer is failing", serving)
	optFailingFlatExports = declare("failing-flat-exports", "COBBLE_FAILING_FLAT_EXPORTS", failing.FlatExports,
		"how many of a project's latest exports grant a computer nothing, while Cobble credited it, to warn", serving)
	optFailingProjectSilent = declare("failing-project-silent", "COBBLE_FAILING_PROJECT_SILENT", failing.ProjectSilent,
		"how old a project's last contact with a computer (the export's rpc_time) must be to warn", serving)
	optFailingCobbleHeard = declare("failing-cobble-heard", "COBBLE_FAILING_COBBLE_HEARD", failing.CobbleHeard,
		"…while Cobble heard from the computer within this long", serving)
	optTrustedProxy = declareList("trusted-proxy", "COBBLE_TRUSTED_PROXY", "an `address or CIDR` of a proxy whose X-Forwarded-For "+
		"names the client; repeat it, or separate several with commas", serving)
	optExportStallTimeout = declare("export-stall-timeout", "COBBLE_EXPORT_STALL_TIMEOUT", reconcile.DefaultOptions().StallTimeout,
		"an export download that receives no byte for this long fails", exporting)
	optExportFileTimeout = declare("export-file-timeout", "COBBLE_EXPORT_FILE_TIMEOUT", reconcile.DefaultOptions().FileTimeout,
		"the longest one export file may take to download and scan", exporting)
	optExportMaxBytes = declare("export-max-bytes", "COBBLE_EXPORT_MAX_BYTES", reconcile.DefaultOptions().MaxBytes,
		"the most `bytes` one export file may hold once decompressed", exporting)
	optAllowPrivateExports = declare("allow-private-exports", "COBBLE_ALLOW_PRIVATE_EXPORTS", false,
		"let export downloads reach loopback, link-local and private addresses (cobble dev: true)", exporting)
	optSMTPURL = declare("smtp-url", "COBBLE_SMTP_URL", "", "the SMTP server mail goes out through: smtp://user:pass@host:587 "+
		"(STARTTLS), smtps://user:pass@host:465, or smtp://host:25 for a local relay (default: none, messages "+
		"wait in the outbox)", serving)
	optMailFrom = declare("mail-from", "COBBLE_MAIL_FROM", "", "the `address` mail comes from, such as \"Cobble <am@example.org>\" "+
		"(default: the name at noreply@ the base URL's host)", serving)
	optLogFormat = declare("log-format", "COBBLE_LOG_FORMAT", "text",
		"how the log is written: `text` (key=value lines) or json (one object a line)", serving)
	optAutoMigrate = declare("auto-migrate", "COBBLE_AUTO_MIGRATE", false, "apply pending migrations at start (cobble dev: true)", serving)
	optNoMigrate   = declare("no-migrate", "", false, "do not apply pending migrations at start: the default; kept for older scripts",
		[]string{"serve"})
	optDatabaseReadURL = declare("database-read-url", "COBBLE_DATABASE_READ_URL", "", "PostgreSQL `URL` of a streaming replica of the "+
		"database, for the admin reports, lookups and downloads (default: none, the primary serves every read)",
		[]string{"serve"})
	optData = declare("data", "", ".data", "`folder` for the private PostgreSQL cluster", []string{"dev"})
)

// options are every option declared above, in the order of their
// declarations: the tables README.md and deploy/cobble.env are checked
// against.
var options []option

// optionValue is the kinds of value an option can take.
type optionValue interface {
	string | int | int64 | float64 | bool | time.Duration
}

// setting is an option whose value is a T: it binds only to a *T, so the
// compiler checks that each option goes where its type fits.
type setting[T optionValue] struct{ option }

// declare declares an option whose value is a T, and adds it to options.
func declare[T optionValue](flag, env string, def T, help string, cmds []string) setting[T] {
	o := option{flag: flag, env: env, def: def, help: help, cmds: cmds}
	options = append(options, o)
	return setting[T]{o}
}

// listSetting is an option whose flag may be given several times, each
// value (or several separated by commas) added to a list.
type listSetting struct{ option }

// declareList declares a list option, and adds it to options.
func declareList(flag, env, help string, cmds []string) listSetting {
	o := option{flag: flag, env: env, help: help, cmds: cmds}
	options = append(options, o)
	return listSetting{o}
}

// usage is the option's help as its flag shows it.
func (o option) usage() string {
	switch {
	case o.env == "":
		return o.help
	case o.def == false:
		return o.help + " (env " + o.env + "=true|false)"
	}
	return o.help + " (env " + o.env + ")"
}

// defText is the default as README.md and deploy/cobble.env write it: a
// duration in its largest whole unit (6h, 30m, 10s), a number in its
// shortest form; "" for none.
func (o option) defText() string {
	switch d := o.def.(type) {
	case string:
		return d
	case int:
		return strconv.Itoa(d)
	case int64:
		return strconv.FormatInt(d, 10)
	case float64:
		return strconv.FormatFloat(d, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(d)
	case time.Duration:
		return durationText(d)
	}
	return ""
}

// durationText writes d in its largest whole unit of h, m and s; else as
// Go writes it.
func durationText(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.name
		}
	}
	return d.String()
}

// binder registers options on one flag set, with their defaults from the
// environment, and keeps the first unusable environment variable's error.
type binder struct {
	fs  *flag.FlagSet
	env environment
	err error
}

// to registers s on b's flag set, writing into p; its environment
// variable, when set, replaces the default.
func (s setting[T]) to(b *binder, p *T) {
	if b.err != nil {
		return
	}
	var err error
	o, usage := s.option, s.usage()
	switch p := any(p).(type) {
	case *string:
		*p = envOr(b.env, o.env, o.def.(string))
		b.fs.StringVar(p, o.flag, *p, usage)
	case *int:
		*p, err = envInt(b.env, o.env, o.def.(int))
		b.fs.IntVar(p, o.flag, *p, usage)
	case *int64:
		var n int
		n, err = envInt(b.env, o.env, int(o.def.(int64)))
		*p = int64(n)
		b.fs.Int64Var(p, o.flag, *p, usage)
	case *float64:
		*p, err = envFloat(b.env, o.env, o.def.(float64))
		b.fs.Float64Var(p, o.flag, *p, usage)
	case *bool:
		*p, err = envBool(o.env, b.env.getenv(o.env), o.def.(bool))
		b.fs.BoolVar(p, o.flag, *p, usage)
	case *time.Duration:
		*p, err = envDuration(b.env, o.env, o.def.(time.Duration))
		b.fs.DurationVar(p, o.flag, *p, usage)
	}
	b.err = err
}

// to registers the list s on b's flag set: each value of its environment
// variable and of each of its flags (several separated by commas) goes to
// add.
func (s listSetting) to(b *binder, add func(string) error) {
	if b.err != nil {
		return
	}
	each := func(v string) error {
		for _, item := range splitList(v) {
			if err := add(item); err != nil {
				return err
			}
		}
		return nil
	}
	if err := each(b.env.getenv(s.env)); err != nil {
		b.err = fmt.Errorf("%w: %s: %v", errUsage, s.env, err)
		return
	}
	b.fs.Func(s.flag, s.usage(), each)
}

// envBool reads the variable key's value v (true or false), or def when
// it is empty.
func envBool(key, v string, def bool) (bool, error) {
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%w: %s=%q is neither true nor false", errUsage, key, v)
	}
	return b, nil
}
