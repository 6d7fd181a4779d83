package main

import (
	"flag"
	"fmt"
	"github.com/cobble-am/cobble/accounting"
	"slices"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting/reconcile"
	"github.com/cobble-am/cobble/web"
)

// option is one setting of Cobble's commands, declared once: the flag and
// the environment variable that set it, its default and its help, and
// the commands that take it. The flags are registered from this table
// (bind), and tests check README.md's flag table and deploy/cobble.env
// against it.
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

// envDatabaseURL is the variable that names the database.
const envDatabaseURL = "DATABASE_URL"

// options are Cobble's options. The defaults of reconciliation are
// reconcile.DefaultOptions's, and those of the server web's.
var options = []option{
	{"", envDatabaseURL, "", "the PostgreSQL `URL` of Cobble's database",
		[]string{"serve", "migrate", "user", "project", "reconcile", "ledger"}},
	{"addr", "COBBLE_ADDR", "127.0.0.1:8080", "`host:port` to listen on", serving},
	{"base-url", "COBBLE_BASE_URL", "", "the `URL` BOINC clients use, ending in / (default http://ADDR/)", serving},
	{"metrics-addr", "COBBLE_METRICS_ADDR", "",
		"`host:port` to serve Prometheus /metrics on, apart from the site (default: off)", serving},
	{"name", "COBBLE_NAME", "Cobble", "the account manager's `name`", serving},
	{"repeat-sec", "COBBLE_REPEAT_SEC", float64(6 * 3600), "`seconds` between a client's RPCs", serving},
	{"max-projects", "COBBLE_MAX_PROJECTS", 4, "the most projects one host works for", serving},
	{"ledger-detail-months", "COBBLE_LEDGER_DETAIL_MONTHS", 0, "`months` before the current one whose per-computer " +
		"ledger rows are kept; older months keep per-volunteer totals only; 0 = keep everything", serving},
	{"reconcile-every", "COBBLE_RECONCILE_EVERY", reconcile.DefaultOptions().Every,
		"how often each project is reconciled with its credit export; 0 = only on demand (cobble dev: 0)", serving},
	{"admin-two-factor", "COBBLE_ADMIN_TWO_FACTOR", web.AdminTwoFactorRequired,
		"`required` (an admin without two-factor sign-in is sent to enrol before any admin page) or optional " +
			"(cobble dev: optional)", serving},
	{"ratio-window", "COBBLE_RATIO_WINDOW", reconcile.DefaultOptions().Window,
		"trailing window of granted ÷ estimated ratios", serving},
	{"ratio-low", "COBBLE_RATIO_LOW", reconcile.DefaultOptions().RatioLow,
		"flag a host whose ratio is below this × its project's median", serving},
	{"ratio-high", "COBBLE_RATIO_HIGH", reconcile.DefaultOptions().RatioHigh,
		"flag a host whose ratio is above this × its project's median", serving},
	{"request-timeout", "COBBLE_REQUEST_TIMEOUT", web.DefaultRequestTimeout,
		"the longest one request may take; past it the request answers 503", serving},
	{"reconcile-workers", "COBBLE_RECONCILE_WORKERS", reconcile.DefaultOptions().Workers,
		"how many projects the periodic reconciliation works on at once", serving},
	{"signup-limit", "COBBLE_SIGNUP_LIMIT", web.DefaultSignupsPerHour,
		"how many accounts one address may create in an hour", serving},
	{"api-limit", "COBBLE_API_LIMIT", web.DefaultAPIPerMinute,
		"how many API requests one token may send in a minute", serving},
	{"failing-window", "COBBLE_FAILING_WINDOW", failing.Window,
		"how far back a computer's failed jobs are counted for the failing warning", serving},
	{"failing-min-jobs", "COBBLE_FAILING_MIN_JOBS", failing.MinFailed,
		"the fewest failed jobs in that window that make a computer failing on a project", serving},
	{"failing-share", "COBBLE_FAILING_SHARE", failing.FailedShare,
		"the share of failed jobs among all jobs in that window at which a computer is failing", serving},
	{"failing-flat-exports", "COBBLE_FAILING_FLAT_EXPORTS", failing.FlatExports,
		"how many of a project's latest exports grant a computer nothing, while Cobble credited it, to warn", serving},
	{"failing-project-silent", "COBBLE_FAILING_PROJECT_SILENT", failing.ProjectSilent,
		"how old a project's last contact with a computer (the export's rpc_time) must be to warn", serving},
	{"failing-cobble-heard", "COBBLE_FAILING_COBBLE_HEARD", failing.CobbleHeard,
		"…while Cobble heard from the computer within this long", serving},
	{"trusted-proxy", "COBBLE_TRUSTED_PROXY", nil, "an `address or CIDR` of a proxy whose X-Forwarded-For " +
		"names the client; repeat it, or separate several with commas", serving},
	{"export-stall-timeout", "COBBLE_EXPORT_STALL_TIMEOUT", reconcile.DefaultOptions().StallTimeout,
		"an export download that receives no byte for this long fails", exporting},
	{"export-file-timeout", "COBBLE_EXPORT_FILE_TIMEOUT", reconcile.DefaultOptions().FileTimeout,
		"the longest one export file may take to download and scan", exporting},
	{"export-max-bytes", "COBBLE_EXPORT_MAX_BYTES", reconcile.DefaultOptions().MaxBytes,
		"the most `bytes` one export file may hold once decompressed", exporting},
	{"allow-private-exports", "COBBLE_ALLOW_PRIVATE_EXPORTS", false,
		"let export downloads reach loopback, link-local and private addresses (cobble dev: true)", exporting},
	{"smtp-url", "COBBLE_SMTP_URL", "", "the SMTP server mail goes out through: smtp://user:pass@host:587 " +
		"(STARTTLS), smtps://user:pass@host:465, or smtp://host:25 for a local relay (default: none, messages " +
		"wait in the outbox)", serving},
	{"mail-from", "COBBLE_MAIL_FROM", "", "the `address` mail comes from, such as \"Cobble <am@example.org>\" " +
		"(default: the name at noreply@ the base URL's host)", serving},
	{"log-format", "COBBLE_LOG_FORMAT", "text",
		"how the log is written: `text` (key=value lines) or json (one object a line)", serving},
	{"auto-migrate", "COBBLE_AUTO_MIGRATE", false, "apply pending migrations at start (cobble dev: true)", serving},
	{"no-migrate", "", false, "do not apply pending migrations at start: the default; kept for older scripts",
		[]string{"serve"}},
	{"database-read-url", "COBBLE_DATABASE_READ_URL", "", "PostgreSQL `URL` of a streaming replica of the " +
		"database, for the admin reports, lookups and downloads (default: none, the primary serves every read)",
		[]string{"serve"}},
	{"data", "", ".data", "`folder` for the private PostgreSQL cluster", []string{"dev"}},
}

// lookupOption returns the option whose flag is name; a name not in the
// table is a bug, and panics at start (every command's test registers
// its flags).
func lookupOption(name string) option {
	i := slices.IndexFunc(options, func(o option) bool { return o.flag == name })
	if i < 0 {
		panic("cobble: no option --" + name)
	}
	return options[i]
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

// bind registers the option whose flag is name on fs, writing into p (a
// pointer to the type of the option's default, or a func that takes each
// value of a list); its environment variable, when set, replaces the
// default.
func bind(fs *flag.FlagSet, env environment, name string, p any) error {
	o := lookupOption(name)
	var err error
	switch p := p.(type) {
	case *string:
		*p = envOr(env, o.env, o.def.(string))
		fs.StringVar(p, o.flag, *p, o.usage())
	case *int:
		*p, err = envInt(env, o.env, o.def.(int))
		fs.IntVar(p, o.flag, *p, o.usage())
	case *int64:
		var n int
		n, err = envInt(env, o.env, int(o.def.(int64)))
		*p = int64(n)
		fs.Int64Var(p, o.flag, *p, o.usage())
	case *float64:
		*p, err = envFloat(env, o.env, o.def.(float64))
		fs.Float64Var(p, o.flag, *p, o.usage())
	case *bool:
		*p, err = envBool(o.env, env.getenv(o.env), o.def.(bool))
		fs.BoolVar(p, o.flag, *p, o.usage())
	case *time.Duration:
		*p, err = envDuration(env, o.env, o.def.(time.Duration))
		fs.DurationVar(p, o.flag, *p, o.usage())
	case func(string) error:
		err = bindList(fs, env, o, p)
	default:
		panic(fmt.Sprintf("cobble: --%s into a %T", name, p))
	}
	return err
}

// bindList registers o, a list, on fs: each value of its environment
// variable and of each of its flags (several separated by commas) goes to
// add.
func bindList(fs *flag.FlagSet, env environment, o option, add func(string) error) error {
	each := func(s string) error {
		for _, item := range splitList(s) {
			if err := add(item); err != nil {
				return err
			}
		}
		return nil
	}
	if err := each(env.getenv(o.env)); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, o.env, err)
	}
	fs.Func(o.flag, o.usage(), each)
	return nil
}

// binding is a flag's name and where its value goes, for bindAll.
type binding struct {
	name string
	to   any
}

// bindAll binds each option in turn (bind), stopping at the first
// unusable environment variable.
func bindAll(fs *flag.FlagSet, env environment, bs ...binding) error {
	for _, b := range bs {
		if err := bind(fs, env, b.name, b.to); err != nil {
			return err
		}
	}
	return nil
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
