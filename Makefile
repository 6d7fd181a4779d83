# Cobble's make targets. `make run` and `make test` set up everything they
# need on a fresh Debian machine (installing packages when run as root).
GO ?= go

.PHONY: run test test-short build lint generate

## run: start Cobble on a private PostgreSQL in .data/ with demo data
run:
	@scripts/deps.sh postgresql
	$(GO) run ./cmd/cobble dev

## test: lint, then every test against real PostgreSQL, BOINC client and Chromium
# (-p 4 -parallel 4: most tests wait on Chromium, the BOINC client or
# PostgreSQL, not on the CPU, so twice GOMAXPROCS of a 2-core machine, in
# packages and in tests, keeps it busy. The commands that tests build and
# run as processes are built first, one build at a time, not by several
# tests at once. -timeout: a package's tests, on a first run's cold build
# cache and a busy machine, get half an hour; their waits end before it,
# so that a failure is reported, not cut off by the alarm. The two longest
# packages are named first, so that they start first.)
test: lint
	@scripts/deps.sh postgresql boinc-client chromium nginx prometheus systemd axe-core pg-auto-failover poppler-utils
	$(GO) build -trimpath ./cmd/...
	$(GO) run ./internal/pgcluster/withpg -- $(GO) test -race -count=1 -p 4 -parallel 4 -timeout 30m ./web/ ./cmd/cobble/ ./...

## test-short: the quick inner loop: every test but those of the real BOINC client and Chromium
test-short:
	@scripts/deps.sh postgresql
	$(GO) run ./internal/pgcluster/withpg -- $(GO) test -short -count=1 ./...

## build: build bin/cobble
build:
	$(GO) build -o bin/cobble ./cmd/cobble

## lint: gofmt, go vet, staticcheck and templ freshness
lint:
	@scripts/lint.sh

## generate: regenerate the templ views
generate:
	$(GO) tool templ generate -path views
