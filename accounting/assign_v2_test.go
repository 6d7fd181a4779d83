package accounting

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAssignPreferences(t *testing.T) {
	linux := []string{"x86_64-pc-linux-gnu"}
	astro := Project{ID: 1, Status: StatusActive, Share: 100, Resources: []string{"CPU"}, Keywords: []int{1, 3}}
	cancer := Project{ID: 2, Status: StatusActive, Share: 100, Resources: []string{"CPU"}, Keywords: []int{14}}
	math := Project{ID: 3, Status: StatusActive, Share: 100, Resources: []string{"CPU"}, Keywords: []int{15}}
	climate := Project{ID: 4, Status: StatusActive, Share: 100, Resources: []string{"CPU", "NVIDIA"}, Keywords: []int{35}}
	catalog := []Project{astro, cancer, math, climate}
	type got struct {
		ID     int64
		Action Action
		Reason Reason
	}
	tests := []struct {
		name string
		in   AssignInput
		want []got
	}{
		{"yes keywords come first", AssignInput{Keywords: map[int]KeywordAnswer{15: "yes", 35: "yes"}},
			[]got{{3, Work, ReasonKeyword}, {4, Work, ReasonKeyword}}},
		{"a yes on a parent covers its children", AssignInput{Keywords: map[int]KeywordAnswer{9: "yes"}},
			[]got{{2, Work, ReasonKeyword}, {1, Work, ReasonShare}}},
		{"a no excludes, also through a parent", AssignInput{Keywords: map[int]KeywordAnswer{1: "no", 9: "no"}},
			[]got{{3, Work, ReasonShare}, {4, Work, ReasonShare}}},
		{"the nearest choice wins", AssignInput{Keywords: map[int]KeywordAnswer{9: "no", 14: "yes"}},
			[]got{{2, Work, ReasonKeyword}, {1, Work, ReasonShare}}},
		{"never is never chosen, always is", AssignInput{Choices: map[int64]ProjectChoice{1: ChoiceNever, 4: ChoiceAlways}},
			[]got{{4, Work, ReasonAlways}, {2, Work, ReasonShare}}},
		{"always beats a no keyword", AssignInput{Choices: map[int64]ProjectChoice{1: ChoiceAlways},
			Keywords: map[int]KeywordAnswer{1: "no"}}, []got{{1, Work, ReasonAlways}, {2, Work, ReasonShare}}},
		{"the furthest below its share", AssignInput{Shares: map[int64]float64{1: 0.4, 2: 0.3, 3: 0.1, 4: 0.2}},
			[]got{{3, Work, ReasonShare}, {4, Work, ReasonShare}}},
		{"running projects are kept", AssignInput{Running: map[int64]bool{1: true, 2: true},
			Shares: map[int64]float64{1: 0.9, 2: 0.1}, Keywords: map[int]KeywordAnswer{15: "yes"}},
			[]got{{2, Work, ReasonKept}, {1, Work, ReasonKept}}},
		{"a running project given a no is detached", AssignInput{Running: map[int64]bool{1: true, 2: true},
			Keywords: map[int]KeywordAnswer{1: "no"}}, []got{{2, Work, ReasonKept}, {3, Work, ReasonShare}, {1, Detach, ""}}},
		{"a running never project is detached", AssignInput{Running: map[int64]bool{1: true, 2: true},
			Choices: map[int64]ProjectChoice{2: ChoiceNever}}, []got{{1, Work, ReasonKept}, {3, Work, ReasonShare}, {2, Detach, ""}}},
		{"the GPU is covered", AssignInput{Resources: []string{"CPU", "NVIDIA"}, Shares: map[int64]float64{4: 0.9}},
			[]got{{4, Work, ReasonShare}, {1, Work, ReasonShare}}},
		{"a new host given a project over its share gets a third", AssignInput{Resources: []string{"CPU", "NVIDIA"}, Max: 4,
			Shares: map[int64]float64{4: 0.9, 1: 0.05, 2: 0.05}},
			[]got{{4, Work, ReasonShare}, {3, Work, ReasonShare}, {1, Work, ReasonShare}}},
		{"a known host does not", AssignInput{Resources: []string{"CPU", "NVIDIA"}, Max: 4, Running: map[int64]bool{4: true},
			Shares: map[int64]float64{4: 0.9, 1: 0.05, 2: 0.05}},
			[]got{{4, Work, ReasonKept}, {3, Work, ReasonShare}}},
		{"always projects are added up to the maximum", AssignInput{Max: 3, Running: map[int64]bool{1: true, 2: true, 3: true},
			Choices: map[int64]ProjectChoice{4: ChoiceAlways}}, []got{{4, Work, ReasonAlways}, {1, Work, ReasonKept},
			{2, Work, ReasonKept}, {3, Detach, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Platforms, in.Catalog = linux, catalog
			if in.Resources == nil {
				in.Resources = []string{"CPU"}
			}
			out := []got{}
			for _, a := range Assign(in) {
				out = append(out, got{a.Project.ID, a.Action, a.Reason})
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("Assign (-want +got):\n%s", diff)
			}
		})
	}
}
