package accounting

import (
	"time"
)

// budget is what a host may still be credited, per limited quantity. It
// makes the limits a property of wall time rather than of requests:
//
//   - At each RPC the budget accrues what the host's capacity does in the
//     time since its previous accounted RPC (At): capacity × elapsed.
//   - Before that, whatever was left unspent is capped at capacity × 60 s,
//     the client's accumulation step (plus jobAllowance jobs): work a
//     client had done but not yet added to its counters at one RPC can be
//     credited at the next, and no more than that carries over.
//   - Credit spends it; what exceeds it is clamped.
//
// So over any run of RPCs spanning T, what is credited for each quantity
// is at most capacity × (T + 60 s), however many RPCs there are. The
// budget lives on the host row, which every RPC locks: concurrent RPCs of
// one host spend it one after the other. A new host starts with a full
// carry-over and no accrual.
type budget struct {
	At time.Time // the host's previous accounted RPC; zero before its first
	// Left is what was unspent after that RPC, in the units of Usage; job
	// successes and errors share JobsSuccess (JobsError mirrors it). nil
	// means a full carry-over.
	Left *Usage
}

// available returns what the host may be credited in an RPC at now, and
// the time since its previous accounted RPC (0 if the clock went back).
func (b budget) available(c Capacity, now time.Time) (Usage, time.Duration) {
	carry := c.limits(0)
	if b.Left != nil {
		carry = minUsage(*b.Left, carry)
	}
	var elapsed time.Duration
	if !b.At.IsZero() && now.After(b.At) {
		elapsed = now.Sub(b.At)
	}
	return saturatedAdd(carry, c.accrual(elapsed)), elapsed
}

// spend returns the budget after an RPC at now that had avail and credited
// spent (summed over the host's projects).
func (b budget) spend(avail, spent Usage, now time.Time) budget {
	left := avail
	lf := left.fields()
	for i, f := range lf[:4] {
		*f = max(*f-*spent.fields()[i], 0)
	}
	left.JobsSuccess = max(left.JobsSuccess-spent.JobsSuccess-spent.JobsError, 0)
	left.JobsError = left.JobsSuccess
	at := now
	if b.At.After(now) {
		at = b.At
	}
	return budget{At: at, Left: &left}
}

func minUsage(a, b Usage) Usage {
	fa, fb := a.fields(), b.fields()
	for i := range fa {
		*fa[i] = min(*fa[i], *fb[i])
	}
	return a
}

func saturatedAdd(a, b Usage) Usage {
	fa, fb := a.fields(), b.fields()
	for i := range fa {
		*fa[i] = min(*fa[i]+*fb[i], maxMicro) // each ≤ maxMicro: no overflow
	}
	return a
}
