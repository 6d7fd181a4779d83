package reconcile_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc/exporttest"
)

// A host whose granted credit went down between two exports gets a
// credit_decrease event that tells it in a sentence of its own.
func TestCreditDecreaseIsTold(t *testing.T) {
	t.Parallel()
	e := newReconEnv(t)
	e.stats.publish(may1, []exporttest.Host{gen(101, 42, 1000), gen(105, 42, 300)}, 1)
	e.run()
	e.stats.publish(may1.Add(48*time.Hour), []exporttest.Host{gen(101, 42, 1100), gen(105, 42, 250)}, 2)
	e.run()
	events, err := e.store.Computers.HostEvents(e.ctx, e.hosts[105], 20)
	if err != nil {
		t.Fatal(err)
	}
	var told bool
	for _, ev := range events {
		if ev.Kind != accounting.EventCreditDecrease {
			continue
		}
		told = true
		for _, part := range []string{"The credit P granted this computer went down by 50 in", "to 250."} {
			if s := ev.Sentence(); !strings.Contains(s, part) {
				t.Errorf("%q does not say %q", s, part)
			}
		}
	}
	if !told {
		t.Errorf("no credit decrease among %+v", events)
	}
}
