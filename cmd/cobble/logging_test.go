package main

import (
	"testing"
)

func TestLogFormatFlag(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "text"},
		{[]string{"--log-format", "json"}, nil, "json"},
		{nil, map[string]string{"COBBLE_LOG_FORMAT": "json"}, "json"},
		{[]string{"--log-format", "text"}, map[string]string{"COBBLE_LOG_FORMAT": "json"}, "text"},
	}
	for _, c := range cases {
		cfg, err := serverConfig(t, c.env, c.args...)
		if err != nil || cfg.LogFormat != c.want {
			t.Errorf("%v %v: log format %q, %v; want %q", c.args, c.env, cfg.LogFormat, err, c.want)
		}
	}
}
