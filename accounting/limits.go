package accounting

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cobble-am/cobble/internal/locale"
)

// Bounds on what a host may plausibly claim about itself. A claim outside
// them is replaced by a safe value and the host is flagged.
const (
	maxNCPUs      = 1024 // logical cores
	maxPFPOps     = 1e11 // FLOPS per core
	minPFPOps     = 1e6  // FLOPS per core
	defaultPFPOps = 1e9  // what the client assumes without a benchmark
	maxGPUCount   = 64   // devices of one kind
	maxPeakFLOPS  = 1e16 // FLOPS per device
	maxGPUKinds   = 8    // kinds of GPU in one host
	accumulation  = 60.0 // seconds: the client adds to its counters at least this often
	minJobSeconds = 10.0 // jobs per slot are counted as if one ended every this often
	jobAllowance  = 10   // jobs allowed in any interval on top of that
	gpuECFactor   = 0.2  // the client's GPU credit rate: count × 0.2 × peak FLOPS
)

// Capacity is what a host can do at most, after implausible claims are
// replaced by safe values.
type Capacity struct {
	NCPUs  int
	PFPOps float64
	GPUs   []Coproc
}

// capacityOf returns the host's capacity and a description of each claim
// that had to be replaced (empty when all was plausible), for the
// volunteer's message in their language and in English for the admins.
func capacityOf(h HostReport) (Capacity, claims) {
	var issues claims
	c := Capacity{NCPUs: h.NCPUs, PFPOps: h.PFPOps}
	if c.NCPUs < 1 || c.NCPUs > maxNCPUs {
		issues = append(issues, locale.M("rpc.claim_cpus", "N", strconv.Itoa(h.NCPUs)))
		c.NCPUs = 1
	}
	if !(c.PFPOps >= minPFPOps && c.PFPOps <= maxPFPOps) {
		issues = append(issues, locale.M("rpc.claim_flops", "FLOPS", fmt.Sprintf("%g", h.PFPOps)))
		c.PFPOps = defaultPFPOps
	}
	for _, g := range h.Coprocs {
		if g.Count == 0 {
			continue
		}
		if g.Count < 0 || g.Count > maxGPUCount || !(g.PeakFLOPS >= 0 && g.PeakFLOPS <= maxPeakFLOPS) ||
			len(c.GPUs) == maxGPUKinds {
			issues = append(issues, locale.M("rpc.claim_gpus", "N", strconv.Itoa(g.Count), "Type", CleanText(g.Type, 64),
				"FLOPS", fmt.Sprintf("%g", g.PeakFLOPS)))
			continue
		}
		c.GPUs = append(c.GPUs, g)
	}
	return c, issues
}

// rates is what a host can add to its counters per second, summed over
// all its projects: credits and seconds in micro-units, jobs as jobs.
type rates struct {
	CPUEC, CPUTime, GPUEC, GPUTime, Jobs float64
}

func (c Capacity) rates() rates {
	var gpus, gpuEC float64
	for _, g := range c.GPUs {
		n := float64(g.Count)
		gpus += n
		gpuEC += n * n * gpuECFactor * g.PeakFLOPS
	}
	return rates{
		CPUEC:   float64(c.NCPUs) * c.PFPOps * CobblestoneScale * microPerUnit,
		CPUTime: float64(c.NCPUs) * microPerUnit,
		GPUEC:   gpuEC * CobblestoneScale * microPerUnit,
		GPUTime: gpus * microPerUnit,
		Jobs:    (float64(c.NCPUs) + gpus) / minJobSeconds,
	}
}

// accrual returns what a host with this capacity does in dt: the rates ×
// dt, rounded down. Job successes and errors share one bound.
func (c Capacity) accrual(dt time.Duration) Usage {
	secs := max(dt.Seconds(), 0)
	r := c.rates()
	jobs := saturate(r.Jobs * secs)
	return Usage{CPUEC: saturate(r.CPUEC * secs), CPUTime: saturate(r.CPUTime * secs),
		GPUEC: saturate(r.GPUEC * secs), GPUTime: saturate(r.GPUTime * secs), JobsSuccess: jobs, JobsError: jobs}
}

// limits returns the most a host with this capacity can add to its counters,
// summed over all its projects, in an interval of dt: what it does in dt
// plus the client's 60 s accumulation step, and jobAllowance more jobs.
func (c Capacity) limits(dt time.Duration) Usage {
	u := c.accrual(max(dt, 0) + accumulation*time.Second)
	u.JobsSuccess = min(u.JobsSuccess+jobAllowance, maxMicro)
	u.JobsError = u.JobsSuccess
	return u
}

// saturate converts a non-negative float to int64, capped at maxMicro.
func saturate(f float64) int64 {
	if !(f < maxMicro) {
		return maxMicro
	}
	return int64(math.Floor(f))
}

// clampAll splits each project's delta into what is credited and what is
// clamped, so that the credited sums stay within lim. Where a sum is over,
// every project keeps the same fraction of its delta. Job counts are limited
// together: successes plus errors within lim.JobsSuccess.
func clampAll(deltas []Usage, lim Usage) (credited, clamped []Usage) {
	credited = make([]Usage, len(deltas))
	copy(credited, deltas)
	clamped = make([]Usage, len(deltas))
	for f := range 4 {
		scaleField(credited, clamped, f, lim.fields()[f])
	}
	var jobs int64
	for _, d := range deltas {
		jobs += d.JobsSuccess + d.JobsError
	}
	if jobs > lim.JobsSuccess {
		for f := 4; f < 6; f++ {
			scaleFieldBy(credited, clamped, f, float64(lim.JobsSuccess)/float64(jobs))
		}
	}
	return credited, clamped
}

// scaleField scales field f of every usage so that their sum is at most limit.
func scaleField(credited, clamped []Usage, f int, limit *int64) {
	var sum int64
	for i := range credited {
		sum += *credited[i].fields()[f]
	}
	if sum > *limit {
		scaleFieldBy(credited, clamped, f, float64(*limit)/float64(sum))
	}
}

func scaleFieldBy(credited, clamped []Usage, f int, ratio float64) {
	for i := range credited {
		v := credited[i].fields()[f]
		keep := min(int64(math.Floor(float64(*v)*ratio)), *v)
		*clamped[i].fields()[f] += *v - keep
		*v = keep
	}
}

// claims are a host's implausible claims, each put into words.
type claims []locale.Msg

// In writes the claims in l, one after the other: a placeholder's value
// in the volunteer's message.
func (c claims) In(l *locale.Lang) string {
	words := make([]string, len(c))
	for i, m := range c {
		words[i] = m.In(l)
	}
	return strings.Join(words, "; ")
}

// English lists the claims in English, for the admins (the host's row and
// its events).
func (c claims) English() []string {
	words := make([]string, len(c))
	for i, m := range c {
		words[i] = m.String()
	}
	return words
}
