package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/cobble-am/cobble/web"
)

// limitFlags are the server flags that bound what requests and background
// work may take.
type limitFlags struct {
	requestTimeout time.Duration
}

// register adds the limit flags to fs, with defaults from the environment.
func (f *limitFlags) register(fs *flag.FlagSet, env environment) error {
	timeout, err := envDuration(env, "COBBLE_REQUEST_TIMEOUT", web.DefaultRequestTimeout)
	if err != nil {
		return err
	}
	fs.DurationVar(&f.requestTimeout, "request-timeout", timeout,
		"the longest one request may take; past it the request answers 503 (env COBBLE_REQUEST_TIMEOUT)")
	return nil
}

// apply checks the limit flags and sets them in cfg.
func (f *limitFlags) apply(cfg *web.Config) error {
	if f.requestTimeout < time.Second || f.requestTimeout > 10*time.Minute {
		return fmt.Errorf("%w: --request-timeout must be between 1s and 10m", errUsage)
	}
	cfg.RequestTimeout = f.requestTimeout
	return nil
}
