package testport

import "testing"

func TestFreeIsOutsideTheEphemeralRangeAndUnique(t *testing.T) {
	top := ephemeralStart()
	seen := map[int]bool{}
	for range 200 {
		p := Free(t)
		if p < lowest || p >= top {
			t.Fatalf("Free gave %d, outside [%d, %d)", p, lowest, top)
		}
		if seen[p] {
			t.Fatalf("Free gave %d twice", p)
		}
		seen[p] = true
	}
}
