#!/usr/bin/env bash
# Compares the RPC throughput of the working tree with that of an older
# commit, on a machine whose speed drifts from minute to minute.
#
#   scripts/compare-load.sh REV [PAIRS] [DURATION] [LOAD FLAGS...]
#
# LOAD FLAGS go to both builds of cobble-load, for a scenario other than
# the default one, for example:
#
#   scripts/compare-load.sh 209de9e 3 20s --concurrency 8
#   scripts/compare-load.sh 209de9e 3 20s --users 2 --hosts 100 --concurrency 64
#
# Builds cmd/cobble-load at REV and from the working tree, then runs the two
# side by side, each with its own throwaway PostgreSQL, but only one at a
# time: every second the running one is stopped (SIGSTOP) and the other
# continued, so both see the machine in the same state and the ratio of
# their throughputs is measured within one run. Each pair is two such runs,
# one in each order (the one started second comes out a little ahead), and
# its ratio is the geometric mean of the two orders. Prints every run, then
# the min, median and max of the pairs' ratios (working tree ÷ REV).
#
# The printed RPCs/s are about half of what either build does alone, since
# each is stopped half of the time; only the ratios mean anything.
set -euo pipefail

usage="usage: scripts/compare-load.sh REV [PAIRS] [DURATION] [LOAD FLAGS...]"
rev=${1:?$usage}
pairs=${2:-5}
duration=${3:-30s}
shift $(($# < 3 ? $# : 3))
flags=("$@")
for f in "${flags[@]}"; do
	case $f in
	--duration* | --pg-ceiling* | --costs* | --db* | --url* | --cluster*)
		echo "compare-load.sh: $f is set by this script, or would make the two runs share a database" >&2
		exit 2
		;;
	esac
done

dir=$(mktemp -d)
trap 'git worktree remove --force "$dir/src" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
git worktree add --detach --quiet "$dir/src" "$rev"
(cd "$dir/src" && go build -o "$dir/old" ./cmd/cobble-load)
go build -o "$dir/new" ./cmd/cobble-load

# costs BUILD: the flag that turns off BUILD's cost measurement (statement
# statistics and a CPU profile), for builds that have one: a build measures
# throughput alone, as the builds before --costs did.
costs() {
	if "$dir/$1" --help 2>&1 | grep -q -- '-costs'; then
		echo --costs=false
	fi
}

# running PID: whether the process is still there and not a zombie.
running() {
	local state
	state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]
}

# sliced A B: runs the two load tools in turns; prints B's throughput ÷ A's.
sliced() {
	"$dir/$1" --duration "$duration" --pg-ceiling=false $(costs "$1") "${flags[@]}" >"$dir/$1.log" 2>&1 &
	local pa=$!
	kill -STOP "$pa"
	"$dir/$2" --duration "$duration" --pg-ceiling=false $(costs "$2") "${flags[@]}" >"$dir/$2.log" 2>&1 &
	local pb=$!
	kill -STOP "$pb"
	while running "$pa" || running "$pb"; do
		kill -CONT "$pa" 2>/dev/null || true
		sleep 1
		kill -STOP "$pa" 2>/dev/null || true
		kill -CONT "$pb" 2>/dev/null || true
		sleep 1
		kill -STOP "$pb" 2>/dev/null || true
	done
	wait "$pa" || { cat "$dir/$1.log" >&2; exit 1; }
	wait "$pb" || { cat "$dir/$2.log" >&2; exit 1; }
	local ta tb
	for log in "$dir/$1.log" "$dir/$2.log"; do
		grep -q '^ledger check: OK' "$log" || { cat "$log" >&2; echo "ledger check failed" >&2; exit 1; }
	done
	ta=$(awk '/^throughput/ {print $2}' "$dir/$1.log")
	tb=$(awk '/^throughput/ {print $2}' "$dir/$2.log")
	echo "  $1 then $2: $ta and $tb RPCs/s while sliced, $2 ÷ $1 = $(awk -v a="$ta" -v b="$tb" 'BEGIN {printf "%.3f", b / a}')" >&2
	awk -v a="$ta" -v b="$tb" 'BEGIN {print b / a}'
}

ratios=()
for i in $(seq "$pairs"); do
	echo "pair $i" >&2
	ab=$(sliced old new)
	ba=$(sliced new old)
	r=$(awk -v ab="$ab" -v ba="$ba" 'BEGIN {printf "%.3f", sqrt(ab / ba)}')
	echo "  working tree ÷ $rev: $r" >&2
	ratios+=("$r")
done
load=""
if ((${#flags[@]})); then
	load=" (${flags[*]})"
fi
printf '%s\n' "${ratios[@]}" | sort -n | awk -v rev="$rev" -v load="$load" '
	{ r[NR] = $1 }
	END {
		m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
		printf "working tree ÷ %s over %d pairs%s: min %.3f, median %.3f, max %.3f\n", rev, NR, load, r[1], m, r[NR]
	}'
