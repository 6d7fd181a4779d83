package accounting_test

import (
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// TestOneEmailRule checks that a project's account email and a volunteer's
// address follow the same rule: what one refuses, the other refuses too.
func TestOneEmailRule(t *testing.T) {
	for _, email := range []string{"a,b@example.org", "a;b@example.org", `"a"@example.org`,
		"ada@example", "no-at-sign", "ada@@example.org"} {
		u := accounting.NewUser{Email: email, Password: "long-enough"}
		userErr := u.Validate()
		p := accounting.Project{URL: "https://p.example.org/", Name: "P", Authenticator: "k", AccountEmail: email}
		projectErr := p.Validate()
		if (userErr == nil) != (projectErr == nil) {
			t.Errorf("%q: a volunteer's address gives %v, a project's account email %v", email, userErr, projectErr)
		}
	}
	p := accounting.Project{URL: "https://p.example.org/", Name: "P", Authenticator: "k",
		AccountEmail: "cobble@example.org"}
	if err := p.Validate(); err != nil {
		t.Errorf("a plain account email is refused: %v", err)
	}
}
