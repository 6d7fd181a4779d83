// Package deploy holds no code. Its directory has what runs Cobble in
// production: a systemd unit (cobble.service), the environment file it
// reads (cobble.env), an nginx site that terminates TLS (nginx/), and
// Prometheus alerting rules (prometheus/). Its tests check each file with
// the program that reads it — systemd-analyze, nginx, promtool — and serve
// real requests through nginx to a real Cobble. docs/OPERATIONS.md says how
// to use them.
package deploy
