package views

import (
	"context"
	"strings"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// A team page names its members with a public profile and counts the
// rest: those without one, and those past the page's handles.
func TestTeamPageCountsTheMembersItDoesNotName(t *testing.T) {
	for _, c := range []struct {
		members int
		handles []string
		want    string
	}{
		{4, []string{"member-a", "member-c"}, "and 2 other members"},
		{2, []string{"member-a"}, "and 1 other member"},
		{3, nil, "None of its 3 members shows a public profile."},
		{1, []string{"member-a"}, ""},
	} {
		var b strings.Builder
		d := TeamPage{Team: accounting.Team{ID: 1, Name: "Visible", Members: c.members}, Members: c.handles}
		if err := TeamView(Page{}, d).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if c.want != "" && !strings.Contains(out, c.want) || c.want == "" && strings.Contains(out, `id="team-others"`) {
			t.Errorf("%d members, handles %v: want %q in the page", c.members, c.handles, c.want)
		}
	}
}
