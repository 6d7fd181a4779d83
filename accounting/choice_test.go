package accounting_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
)

// The choices that are stored are those the database allows, and each
// choice has a name and a form word of its own that reads back as it.
func TestProjectChoicesMatchTheDatabase(t *testing.T) {
	t.Parallel()
	_, pool := storeAndPool(t)
	var stored []accounting.ProjectChoice
	for _, c := range accounting.ProjectChoices {
		if c != accounting.ChoiceAutomatic {
			stored = append(stored, c)
		}
	}
	if diff := cmp.Diff(checkValues(t, pool, "user_projects_choice_check"), sortedStrings(stored)); diff != "" {
		t.Errorf("stored choices differ from those the database allows (-database +ProjectChoices):\n%s", diff)
	}
	names, words := map[string]bool{}, map[string]bool{}
	for _, c := range accounting.ProjectChoices {
		back, ok := accounting.ProjectChoiceOf(c.Word())
		if !ok || back != c || c.Word() == "" {
			t.Errorf("%q: word %q reads back as %q, %v", string(c), c.Word(), string(back), ok)
		}
		if names[c.String()] || words[c.Word()] {
			t.Errorf("%q: name %q or word %q is another choice's", string(c), c.String(), c.Word())
		}
		names[c.String()], words[c.Word()] = true, true
	}
	for _, word := range []string{"", "choose", "exclude", "Always", "maybe"} {
		if c, ok := accounting.ProjectChoiceOf(word); ok {
			t.Errorf("ProjectChoiceOf(%q) = %q, want no choice", word, string(c))
		}
	}
}
