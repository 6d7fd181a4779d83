package web

import (
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/reconcile"
)

// Every job kind has a timeout, and River's rescuer can take over a dead
// instance's message well within 5 minutes; a message's job ends (its
// last try at recording included) before its claim does, so that the job
// the rescuer gives another instance cannot send it twice; the
// reconciliation round's timeout leaves its runs their whole time.
func TestJobTimeouts(t *testing.T) {
	t.Parallel()
	for _, mailTimeout := range []time.Duration{time.Second, DefaultMailTimeout, 10 * time.Minute} {
		got := JobTimeouts(Config{Mail: MailConfig{Timeout: mailTimeout}})
		kinds := []string{accounting.MailJob{}.Kind(), rollupRound{}.Kind(), reconcileRound{}.Kind(),
			alertsRound{}.Kind(), cleanupRound{}.Kind(), strayMailRound{}.Kind(), statsRound{}.Kind()}
		if len(got) != len(kinds) {
			t.Errorf("timeouts of %d kinds, want %d: %v", len(got), len(kinds), got)
		}
		for _, k := range kinds {
			if got[k] <= 0 {
				t.Errorf("%s has no timeout", k)
			}
		}
		job := got[accounting.MailJob{}.Kind()]
		if job < mailTimeout || job+recordTimeout >= mailLease(mailTimeout) {
			t.Errorf("with a delivery timeout of %v: the job's %v, the claim's %v; want the delivery < the job, "+
				"and the job and one more record < the claim", mailTimeout, job, mailLease(mailTimeout))
		}
	}
	def := JobTimeouts(Config{})
	// Rescued at the later of jobsRescueAfter and its timeout, plus the
	// rescuer's 30 s; tried again after DefaultMailRetryAfter.
	if worst := max(jobsRescueAfter, def["mail"]) + 30*time.Second + DefaultMailRetryAfter; worst > 3*time.Minute {
		t.Errorf("a dead instance's message waits up to %v for its next try, want at most 3 minutes", worst)
	}
	opts := reconcile.DefaultOptions()
	if round := def[reconcileRound{}.Kind()]; round < 2*opts.Timeout+reconcile.MeasureTimeout || round < opts.FileTimeout {
		t.Errorf("the reconciliation round's timeout %v leaves no room for a run of %v after the first ones", round, opts.Timeout)
	}
}
