package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/cobble-am/cobble/web"
)

// logFlags say how the server writes its log.
type logFlags struct {
	format string // "text" or "json"
}

// register adds --log-format to fs, with its default from the environment.
func (f *logFlags) register(fs *flag.FlagSet, env environment) error {
	b := &binder{fs: fs, env: env}
	optLogFormat.to(b, &f.format)
	return b.err
}

// apply checks the flags and sets cfg.LogFormat.
func (f *logFlags) apply(cfg *web.Config) error {
	if f.format != "text" && f.format != "json" {
		return fmt.Errorf("%w: --log-format %q must be text or json", errUsage, f.format)
	}
	cfg.LogFormat = f.format
	return nil
}

// logHandler returns the handler of the server's log, writing to w in
// format: "json" is slog's JSON handler, one object a line; anything else
// is its text handler.
func logHandler(w io.Writer, format string) slog.Handler {
	if format == "json" {
		return slog.NewJSONHandler(w, nil)
	}
	return slog.NewTextHandler(w, nil)
}
