#!/usr/bin/env bash
# Checks that Cobble's code is formatted, vetted, staticcheck-clean, and that
# the generated templ files match their sources.
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0
unformatted=$(gofmt -l $(git ls-files --cached --others --exclude-standard '*.go'))
if [ -n "$unformatted" ]; then
  echo "lint: gofmt would change:"; echo "$unformatted"; fail=1
fi

go vet ./... || fail=1
go tool staticcheck ./... || fail=1

for src in $(git ls-files --cached --others --exclude-standard '*.templ'); do
  gen="${src%.templ}_templ.go"
  if ! (cd "$(dirname "$src")" && go tool templ generate -f "$(basename "$src")" -stdout 2>/dev/null) |
    cmp -s - "$gen"; then
    echo "lint: $gen is stale; run 'make generate'"; fail=1
  fi
done

if [ "$fail" -ne 0 ]; then
  echo "lint: failed"; exit 1
fi
echo "lint: ok"
