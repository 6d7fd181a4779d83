package reconcile

import (
	"slices"
	"testing"
	"time"
)

func TestFlagsSayOneOrphan(t *testing.T) {
	r := New(nil, nil, Options{})
	defer r.Close()
	now := time.Now()
	ok := &Run{ID: 1, Status: RunOK, Orphans: 1, Missing: 1, ExportTime: &now}
	pr := Report{LastRun: ok, LastOK: ok, Hosts: 3, Flagged: 1}
	r.flag(&pr)
	want := []string{"1 orphan", "1 missing", "1 host off the median ratio"}
	if !slices.Equal(pr.Flags, want) {
		t.Errorf("flags %q, want %q", pr.Flags, want)
	}
}

func TestFlagsCountUnverifiedMatches(t *testing.T) {
	r := New(nil, nil, Options{})
	defer r.Close()
	now := time.Now()
	ok := &Run{ID: 1, Status: RunOK, ExportTime: &now}
	for n, want := range map[int]string{1: "1 unverified match", 2: "2 unverified matches"} {
		pr := Report{LastRun: ok, LastOK: ok, Unverified: make([]Unverified, n), UnverifiedCount: n}
		r.flag(&pr)
		if !slices.Equal(pr.Flags, []string{want}) {
			t.Errorf("flags %q, want %q", pr.Flags, want)
		}
	}
}
