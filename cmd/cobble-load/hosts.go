package main

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// projectsPerHost is how many catalog projects every host is attached to.
const projectsPerHost = 5

// host is one simulated BOINC client computer. A host belongs to one worker
// at a time, so it never has two RPCs in flight.
type host struct {
	id, userID int64
	token      string // the opaque host token Cobble hands out
	auth       string // the AM authenticator
	cpid       string // host_cpid
	// projectHostIDs are the projects' own ids for this host (<hostid>).
	projectHostIDs [projectsPerHost]int64
	// baseline is what the baseline RPC reported, sent what the latest RPC
	// carried, and acked what the latest successful RPC carried: lifetime
	// counters as a BOINC client keeps them, but with credit and time in
	// whole millionths, so that, printed with six decimals, they convert
	// back exactly as Cobble converts what it reads.
	baseline, sent, acked [projectsPerHost]accounting.Usage
	grownAt               time.Time // when the counters last grew
	// recorded is the transaction of one of its RPCs, as Cobble sent it,
	// COMMIT included: what the PostgreSQL ceiling replays. recordedGrowth
	// is what that RPC added to the ledger (its counters' growth), and
	// replays how many replays of it committed.
	recorded       transaction
	recordedGrowth [projectsPerHost]accounting.Usage
	replays        int64
}

// newHost makes a host of userID with random tokens and lifetime counters
// such as a machine that has run for a while has.
func newHost(userID int64, seq int, rng *rand.Rand) *host {
	h := &host{userID: userID, token: randomHex(16), auth: randomHex(16), cpid: randomHex(16)}
	for i := range h.baseline {
		h.projectHostIDs[i] = int64(seq)*10 + int64(i) + 1
		h.baseline[i] = accounting.Usage{
			CPUEC:       100_000_000 + rng.Int64N(10_000_000_000), // 100–10,100 Cobblestones
			CPUTime:     rng.Int64N(1_000_000_000_000),            // up to 10⁶ s
			GPUEC:       rng.Int64N(300_000_000),                  // GPU work of the past: never grows
			GPUTime:     rng.Int64N(4_000_000_000),
			JobsSuccess: rng.Int64N(1000),
			JobsError:   rng.Int64N(20),
		}
	}
	h.sent, h.acked = h.baseline, h.baseline
	return h
}

// grow adds the work done since the host's previous RPC (now − grownAt) to
// the counters to send: per project 20–80 % of a fifth of what a 2-CPU,
// 1 GFLOPS host does in that time (Cobble credits at most that, summed over
// the projects, plus a minute carried over), and jobs at a tenth of the
// rate Cobble allows.
func (h *host) grow(rng *rand.Rand, now time.Time) {
	secs := 0.0
	if !h.grownAt.IsZero() {
		secs = max(now.Sub(h.grownAt).Seconds(), 0)
	}
	h.grownAt = now
	const ecPerSec, cpuPerSec = 2 * 1e9 * accounting.CobblestoneScale * 1e6 / projectsPerHost, 2 * 1e6 / projectsPerHost
	for i := range h.sent {
		c := &h.sent[i]
		c.CPUEC += int64(secs * ecPerSec * (0.2 + 0.6*rng.Float64()))
		c.CPUTime += int64(secs * cpuPerSec * (0.2 + 0.6*rng.Float64()))
		if rng.Float64() < secs*0.004 { // 0.02 jobs a second over the five projects
			c.JobsSuccess++
		}
		if rng.Float64() < secs*0.0004 {
			c.JobsError++
		}
	}
}

// ack records that Cobble accepted the counters last sent.
func (h *host) ack() { h.acked = h.sent }

// settled reports whether Cobble accepted the latest counters sent.
func (h *host) settled() bool { return h.sent == h.acked }

// appendMicro appends m millionths as a decimal with six places, the way
// the client prints its counters (%f).
func appendMicro(dst []byte, m int64) []byte {
	if m < 0 {
		dst, m = append(dst, '-'), -m
	}
	dst = strconv.AppendInt(dst, m/1_000_000, 10)
	frac := m % 1_000_000
	dst = append(dst, '.')
	for d := int64(100_000); d > 0; d /= 10 {
		dst = append(dst, byte('0'+frac/d%10))
	}
	return dst
}

// micro formats m millionths for people.
func micro(m int64) string { return string(appendMicro(nil, m)) }

// appendAmount appends v, an amount of counter f, as the client prints it:
// with six decimals when f is kept in micro-units.
func appendAmount(dst []byte, f accounting.UsageField, v int64) []byte {
	if f.Micro {
		return appendMicro(dst, v)
	}
	return strconv.AppendInt(dst, v, 10)
}
