#!/usr/bin/env bash
# Makes one machine of a pg_auto_failover formation for Cobble: the monitor,
# or one of the two PostgreSQL nodes. Run it as root on each machine, the
# monitor's first, after `apt-get install postgresql-15-auto-failover`
# (scripts/deps.sh pg-auto-failover):
#
#   formation.sh monitor MONITOR_HOST
#   formation.sh node    NODE_HOST MONITOR_HOST     # on the first node, then on the second
#
# The first node made becomes the primary; the second is cloned from it and
# becomes its synchronous secondary (pg_auto_failover's default with one
# secondary: number_sync_standbys 0, both nodes in the replication quorum,
# synchronous_standby_names 'ANY 1 (...)', synchronous_commit on). Then
# enable deploy/pg_auto_failover/pg_autoctl.service on each machine.
#
# The nodes' pg_hba.conf admits the machine's local network (--pg-hba-lan);
# Cobble's instances elsewhere need a line of their own. Authentication is
# scram-sha-256: after the monitor is made, give its autoctl_node user a
# password (ALTER USER autoctl_node PASSWORD ...) and put it in the nodes'
# ~postgres/.pgpass; on each node, `pg_autoctl config set
# replication.password` sets the replication user's. TLS uses self-signed
# certificates; replace them with your own (pg_autoctl enable ssl --help).
#
# What it prints at the end: the formation's URL, whose hosts Cobble's
# DATABASE_URL names (docs/OPERATIONS.md, "Running on pg_auto_failover").
set -euo pipefail

readonly bindir=/usr/lib/postgresql/15/bin
readonly base=/var/lib/postgresql/15
PORT=${PORT:-5432}

autoctl() {
	runuser -u postgres -- env PG_CONFIG="$bindir/pg_config" /usr/bin/pg_autoctl "$@"
}

monitor() {
	local host=$1
	autoctl create monitor --pgdata "$base/monitor" --pgport "$PORT" --hostname "$host" \
		--auth scram-sha-256 --ssl-self-signed
	echo "monitor made; its URL, for the nodes:"
	autoctl show uri --pgdata "$base/monitor"
}

node() {
	local host=$1 monitor_host=$2
	autoctl create postgres --pgdata "$base/cobble" --pgport "$PORT" --hostname "$host" \
		--dbname cobble --auth scram-sha-256 --ssl-self-signed --pg-hba-lan \
		--monitor "postgres://autoctl_node@$monitor_host:$PORT/pg_auto_failover?sslmode=require"
	echo "node made; the formation's URL, for Cobble's DATABASE_URL:"
	autoctl show uri --pgdata "$base/cobble" --formation default
}

case ${1:-} in
monitor) monitor "${2:?MONITOR_HOST missing}" ;;
node) node "${2:?NODE_HOST missing}" "${3:?MONITOR_HOST missing}" ;;
*)
	echo "usage: $0 monitor MONITOR_HOST | $0 node NODE_HOST MONITOR_HOST" >&2
	exit 2
	;;
esac
