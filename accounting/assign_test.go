package accounting

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAssign(t *testing.T) {
	t.Parallel()
	cpu := Project{ID: 1, Status: StatusActive, Resources: []string{"CPU"}}
	cpu2 := Project{ID: 2, Status: StatusActive, Resources: []string{"CPU"}}
	gpu := Project{ID: 3, Status: StatusActive, Resources: []string{"CPU", "NVIDIA"}}
	amd := Project{ID: 4, Status: StatusActive, Resources: []string{"ATI"}}
	paused := Project{ID: 5, Status: StatusPaused, Resources: []string{"CPU"}}
	retired := Project{ID: 6, Status: StatusRetired, Resources: []string{"CPU"}}
	mac := Project{ID: 7, Status: StatusActive, Resources: []string{"CPU"}, Platforms: []string{"arm64-apple-darwin"}}
	linux := []string{"x86_64-pc-linux-gnu", "i686-pc-linux-gnu"}

	type got struct {
		ID     int64
		Action Action
	}
	tests := []struct {
		name string
		in   AssignInput
		want []got
	}{
		{"new CPU host gets two", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{cpu, cpu2, gpu}}, []got{{1, Work}, {2, Work}}},
		{"GPU host gets its GPU covered first", AssignInput{Platforms: linux, Resources: []string{"CPU", "NVIDIA"},
			Catalog: []Project{cpu, cpu2, gpu}}, []got{{3, Work}, {1, Work}}},
		{"every resource covered", AssignInput{Platforms: linux, Resources: []string{"CPU", "NVIDIA", "ATI"},
			Catalog: []Project{cpu, gpu, amd}, Max: 4}, []got{{3, Work}, {4, Work}}},
		{"running projects are kept", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{cpu, cpu2, gpu}, Running: map[int64]bool{3: true}}, []got{{3, Work}, {1, Work}}},
		{"excluded is never chosen and is detached", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{cpu, cpu2, gpu}, Running: map[int64]bool{1: true},
			Choices: map[int64]ProjectChoice{1: ChoiceNever}}, []got{{2, Work}, {3, Work}, {1, Detach}}},
		{"chosen ones come in", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{cpu, cpu2, gpu}, Choices: map[int64]ProjectChoice{3: ChoiceAlways}, Max: 2},
			[]got{{3, Work}, {1, Work}}},
		{"retired is detached, paused drained", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{cpu, cpu2, paused, retired}, Running: map[int64]bool{5: true, 6: true}},
			[]got{{1, Work}, {2, Work}, {5, Drain}, {6, Detach}}},
		{"platform must match", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{mac, cpu}}, []got{{1, Work}}},
		{"manually attached projects are left alone", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{cpu, cpu2, gpu}, Manual: map[int64]bool{1: true}}, []got{{2, Work}, {3, Work}}},
		{"max caps running projects", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{cpu, cpu2, gpu}, Running: map[int64]bool{1: true, 2: true, 3: true}, Max: 2},
			[]got{{1, Work}, {2, Work}, {3, Detach}}},
		{"nothing eligible", AssignInput{Platforms: linux, Resources: []string{"CPU"},
			Catalog: []Project{amd, mac}}, []got{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := []got{}
			for _, a := range Assign(tt.in) {
				out = append(out, got{a.Project.ID, a.Action})
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("Assign (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssignNoRsc(t *testing.T) {
	t.Parallel()
	p := Project{ID: 1, Status: StatusActive, Resources: []string{"CPU", "NVIDIA"}}
	as := Assign(AssignInput{Resources: []string{"CPU"}, Catalog: []Project{p}})
	if len(as) != 1 {
		t.Fatalf("got %d assignments, want 1", len(as))
	}
	want := []string{"ATI", "intel_gpu", "apple_gpu"}
	if diff := cmp.Diff(want, as[0].NoRsc); diff != "" {
		t.Errorf("NoRsc (-want +got):\n%s", diff)
	}
}

func TestURLKey(t *testing.T) {
	t.Parallel()
	same := []string{"http://Example.org/proj/", "https://example.org/proj", " HTTPS://EXAMPLE.ORG/proj/ "}
	for _, s := range same {
		if urlKey(s) != urlKey(same[0]) {
			t.Errorf("urlKey(%q) = %q, want %q", s, urlKey(s), urlKey(same[0]))
		}
	}
	if urlKey("http://example.org/a/") == urlKey("http://example.org/b/") {
		t.Error("different paths compare equal")
	}
}
