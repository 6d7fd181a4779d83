package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
)

// TestRun runs the whole tool briefly against a fresh database, with Cobble
// in this process, and expects RPCs to succeed and both ledger checks to pass.
func TestRun(t *testing.T) {
	dbURL := testdb.NewURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, logs bytes.Buffer
	args := []string{"--db", dbURL, "--users", "3", "--hosts", "2", "--concurrency", "4",
		"--warmup", "300ms", "--duration", "1s"}
	if err := run(ctx, args, &out, &logs); err != nil {
		t.Fatalf("run: %v\noutput:\n%s\nlog:\n%s", err, out.String(), logs.String())
	}
	got := out.String()
	for _, want := range []string{"ledger check: OK (30 pairs;", "ledger check after the PostgreSQL run: OK (30 pairs;",
		"population: 3 volunteers × 2 hosts = 6 hosts", "Cobble ÷ PostgreSQL:",
		"(6 hosts' RPCs recorded, the first 8 statements in 2 round trips; 0 not recorded)", "CPU per RPC"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	m := regexp.MustCompile(`RPCs: (\d+) sent, (\d+) OK, 0 failed`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no RPC line without failures in the output:\n%s", got)
	}
	if ok, _ := strconv.Atoi(m[2]); ok == 0 {
		t.Errorf("no RPC succeeded:\n%s", got)
	}
}

// TestRequest checks that a built request reads back, through Cobble's own
// parser, as the host's authenticator, token and exact counters.
func TestRequest(t *testing.T) {
	urls := [projectsPerHost]string{}
	for i := range urls {
		urls[i] = "http://127.0.0.1:9/p" + strconv.Itoa(i) + "/"
	}
	b, err := newRequestBuilder(urls)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	h := newHost(7, 3, rng)
	now := time.Now()
	h.grow(rng, now)
	h.grow(rng, now.Add(1500*time.Millisecond))
	if h.sent == h.baseline {
		t.Fatal("the counters did not grow")
	}
	req, err := boinc.ParseRequest(b.build(nil, h))
	if err != nil {
		t.Fatal(err)
	}
	if req.Authenticator != h.auth || req.Name != "" || req.PasswordHash != "" || req.HostCPID != h.cpid ||
		req.Host.HostCPID != h.cpid || req.Opaque != "<host_token>"+h.token+"</host_token>" ||
		req.Host.NCPUs != 2 || req.Host.PFPOps != 1e9 {
		t.Errorf("request header wrong: %+v", req)
	}
	if len(req.Projects) != projectsPerHost {
		t.Fatalf("%d projects, want %d", len(req.Projects), projectsPerHost)
	}
	for i, p := range req.Projects {
		c := p.Counters
		if p.URL != urls[i] || !p.AttachedViaAcctMgr || p.HostID != h.projectHostIDs[i] || c == nil {
			t.Fatalf("project %d wrong: %+v", i, p)
		}
		got := accounting.Usage{CPUEC: toMicro(c.CPUEC), CPUTime: toMicro(c.CPUTime), GPUEC: toMicro(c.GPUEC),
			GPUTime: toMicro(c.GPUTime), JobsSuccess: c.JobsSuccess, JobsError: c.JobsError}
		if got != h.sent[i] {
			t.Errorf("project %d counters read back as %+v, sent %+v", i, got, h.sent[i])
		}
	}
}

// toMicro converts as Cobble's accounting does.
func toMicro(f float64) int64 { return int64(math.Round(f * 1e6)) }

func TestAppendMicro(t *testing.T) {
	for m, want := range map[int64]string{0: "0.000000", 1: "0.000001", 12_345_678_000: "12345.678000",
		-1_500_000: "-1.500000", 999_999: "0.999999"} {
		if got := micro(m); got != want {
			t.Errorf("micro(%d) = %q, want %q", m, got, want)
		}
	}
}

func TestConfig(t *testing.T) {
	env := func(string) string { return "" }
	for _, args := range [][]string{
		{"--url", "http://example.org/", "--db", "postgres://x@127.0.0.1/db"},
		{"--url", "http://127.0.0.1:8080/"},
		{"--users", "0"},
		{"--duration", "0s"},
		{"--db", "postgres://x@127.0.0.1/db", "--pg-durable"},
		{"stray"},
		{"--mixed"},
		{"--history", "10k", "--mixed", "--rounds", "2"},
		{"--history", "10k", "--mixed", "--visitors", "0"},
		{"--pg-shared-buffers", "4 GB"},
		{"--pg-shared-buffers", "4GB; fsync=on"},
		{"--db", "postgres://x@127.0.0.1/db", "--pg-shared-buffers", "4GB"},
	} {
		if _, err := parseConfig(args, io.Discard, env); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	c, err := parseConfig([]string{"--url", "http://127.0.0.1:8080/"}, io.Discard,
		func(string) string { return "postgres://x@127.0.0.1/db" })
	if err != nil || c.dbURL == "" || c.users != 200 || c.hostsPerUser != 5 || c.concurrency != 32 {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	if c, err := parseConfig([]string{"--pg-shared-buffers", "4GB"}, io.Discard, env); err != nil ||
		clusterSettings(false, false, c.pgBuffers)["shared_buffers"] != "4GB" {
		t.Errorf("--pg-shared-buffers 4GB: %+v, %v", c, err)
	}
	for _, m := range []struct {
		args []string
		rate float64
	}{
		{[]string{"--history", "10k", "--mixed"}, mixedRate},
		{[]string{"--history", "10k", "--mixed", "--rate", "20"}, 20},
		{[]string{"--history", "10k"}, 0},
	} {
		if c, err := parseConfig(m.args, io.Discard, env); err != nil || c.rate != m.rate {
			t.Errorf("%q: rate %g (%v), want %g", m.args, c.rate, err, m.rate)
		}
	}
	if got := quoteArgs([]string{"--db=postgres://u:secret@127.0.0.1/x", "--db", "password=secret", "a b"}); strings.Contains(got, "secret") ||
		!strings.Contains(got, "'a b'") {
		t.Errorf("quoteArgs: %s", got)
	}
}

// TestHistoryRounds builds a small history, measures it in two rounds
// beside an empty database, then measures it again in a second run that
// finds it in the database instead of building it.
func TestHistoryRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a history and runs the load four times")
	}
	dbURL := testdb.NewURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{"--db", dbURL, "--users", "2", "--hosts", "2", "--concurrency", "2", "--warmup", "100ms",
		"--duration", "500ms", "--history", "10k", "--pages", "--page-requests", "2", "--export-hosts", "0"}
	for i, want := range [][]string{
		{"history: 1 volunteers, 10 hosts × 3 projects × 365 days: 10950 ledger rows", "(built in ",
			"round 2 of 2", "RPC throughput with the history ÷ on the empty database:", "rollup round on the history",
			"admin host page", "over the 2 rounds: minimum / median / maximum"},
		{"(built by an earlier run, found in the database)", "round 1 of 1", "ledger check: OK"},
	} {
		rounds := []string{"--rounds", "2"}
		if i == 1 {
			rounds = nil
		}
		var out, logs bytes.Buffer
		if err := run(ctx, append(args, rounds...), &out, &logs); err != nil {
			t.Fatalf("run %d: %v\noutput:\n%s\nlog:\n%s", i+1, err, out.String(), logs.String())
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("run %d: the output lacks %q:\n%s", i+1, w, out.String())
			}
		}
		if strings.Contains(out.String(), " failed:") {
			t.Errorf("run %d: RPCs failed:\n%s", i+1, out.String())
		}
	}
}

// TestMixed runs the mixed load on a small history: the RPCs and pages
// alone and at once, with the password resets' mail delivered to the SMTP
// server on loopback, and the ledger exact after it.
func TestMixed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a history and runs the load twice")
	}
	dbURL := testdb.NewURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{"--db", dbURL, "--users", "2", "--hosts", "2", "--concurrency", "2", "--warmup", "100ms",
		"--duration", "1s", "--rate", "50", "--history", "10k", "--mixed", "--visitors", "3", "--think", "100ms",
		"--export-hosts", "0"}
	var out, logs bytes.Buffer
	if err := run(ctx, args, &out, &logs); err != nil {
		t.Fatalf("%v\noutput:\n%s\nlog:\n%s", err, out.String(), logs.String())
	}
	for _, w := range []string{"alone: the RPCs at 50 a second", "under the mix against alone", "volunteer dashboard",
		"reset mail, from the request to the message at the SMTP server: p50", "ledger check: OK",
		// The credit measure at the start, as a server computes it.
		"credit measure at the start: ",
		// What the server's own background jobs did in each phase.
		"the server's background jobs over the RPCs alone: ", "the server's background jobs over the visitors alone: ",
		"the server's background jobs over everything at once",
		"the server's pool over the RPCs alone (16 connections): "} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the output lacks %q:\n%s", w, out.String())
		}
	}
	for _, bad := range []string{" failed:", "failed alone", "failed at once", "did not within", "not accepted:"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("the output has %q:\n%s", bad, out.String())
		}
	}
}
