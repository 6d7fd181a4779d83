package accounting_test

import (
	"context"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// A computer's project choice and the volunteer's are one ProjectChoice
// with one vocabulary: both take each choice's Word and refuse any other.
func TestComputerAndVolunteerChoicesShareTheirWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "long-enough"}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Catalog.AddProject(ctx, accounting.Project{URL: "https://a.example.org/", Name: "A", Authenticator: "k"})
	if err != nil {
		t.Fatal(err)
	}
	host, _ := joinedHost(t, s, "ada@example.org", "long-enough", "cpid-1", p)
	u, err := s.Accounts.Login(ctx, "ada@example.org", "long-enough")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range accounting.ProjectChoices {
		if err := s.Computers.SetComputerChoices(ctx, u.ID, host.HostID, map[int64]string{p.ID: c.Word()}); err != nil {
			t.Errorf("the computer refuses %q: %v", c.Word(), err)
		}
		st, err := s.Computers.ComputerSettings(ctx, u.ID, host.HostID)
		if err != nil {
			t.Fatal(err)
		}
		if st.Choices[p.ID] != c {
			t.Errorf("the computer stored %q for %q", st.Choices[p.ID], c.Word())
		}
		if err := s.Computers.SetProjectChoices(ctx, u.ID, map[int64]string{p.ID: c.Word()}); err != nil {
			t.Errorf("the volunteer's choices refuse %q: %v", c.Word(), err)
		}
	}
	for _, word := range []string{"follow", "choose", "exclude", ""} {
		if err := s.Computers.SetComputerChoices(ctx, u.ID, host.HostID, map[int64]string{p.ID: word}); err == nil {
			t.Errorf("the computer takes %q", word)
		}
		if err := s.Computers.SetProjectChoices(ctx, u.ID, map[int64]string{p.ID: word}); err == nil {
			t.Errorf("the volunteer's choices take %q", word)
		}
	}
}
