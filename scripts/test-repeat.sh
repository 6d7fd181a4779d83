#!/usr/bin/env bash
# Runs the whole suite (make test) N times on a fresh clone of this
# checkout's HEAD, and prints each run's result and time, then how many
# passed; exits 1 unless every run passed.
#
#   scripts/test-repeat.sh N [BUSY]
#
# BUSY (default 0) busy loops run beside the suite, each taking a core, as
# on a laptop at work or a shared CI runner. A test that fails once in ten
# runs is a broken test: this is how to find it before a newcomer does.
set -euo pipefail
n=${1:?usage: scripts/test-repeat.sh N [BUSY]}
busy=${2:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse --short HEAD)
work=$(mktemp -d "${TMPDIR:-/tmp}/cobble-repeat-XXXXXX")
git clone -q "$root" "$work/cobble"
git -C "$work/cobble" checkout -q "$commit"

loops=()
stop_loops() { [ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null || true; }
trap stop_loops EXIT
for ((i = 0; i < busy; i++)); do
  (while :; do :; done) &
  loops+=($!)
done

passed=0
for ((i = 1; i <= n; i++)); do
  log="$work/run-$i.log"
  start=$(date +%s)
  if (cd "$work/cobble" && make test) >"$log" 2>&1; then
    result=PASS
    passed=$((passed + 1))
  else
    result=FAIL
  fi
  secs=$(($(date +%s) - start))
  printf 'run %d of %d: %s in %dm%02ds (%s)\n' "$i" "$n" "$result" $((secs / 60)) $((secs % 60)) "$log"
  if [ "$result" = FAIL ]; then
    grep -E -- '^(--- FAIL|FAIL|panic:|lint:)' "$log" | head -20 | sed 's/^/    /' || true
  fi
done
echo "$passed of $n runs passed on $commit with $busy busy loops beside them"
[ "$passed" -eq "$n" ]
