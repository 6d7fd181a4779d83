// Package deploy holds no code. Its directory has what runs Cobble in
// production: a systemd unit (cobble.service), the environment file it
// reads (cobble.env), an nginx site that terminates TLS (nginx/),
// Prometheus alerting rules (prometheus/), and for a database that fails
// over, pg_auto_failover's keeper unit and a script that makes a formation
// (pg_auto_failover/). Its tests check each file with the program that
// reads it — systemd-analyze, nginx, promtool, bash — and serve
// real requests through nginx to a real Cobble. docs/OPERATIONS.md says how
// to use them.
package deploy
