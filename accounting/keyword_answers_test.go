package accounting_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
)

// The keyword answers that are stored (all but KeywordMaybe) are those the
// database allows, and only KeywordAnswers are Valid.
func TestKeywordAnswersMatchTheDatabase(t *testing.T) {
	t.Parallel()
	_, pool := storeAndPool(t)
	var stored []accounting.KeywordAnswer
	for _, a := range accounting.KeywordAnswers {
		if !a.Valid() {
			t.Errorf("%q is listed but not Valid", a)
		}
		if a != accounting.KeywordMaybe {
			stored = append(stored, a)
		}
	}
	if diff := cmp.Diff(checkValues(t, pool, "user_keywords_choice_check"), sortedStrings(stored)); diff != "" {
		t.Errorf("stored answers differ from those the database allows (-database +KeywordAnswers):\n%s", diff)
	}
	for _, a := range []accounting.KeywordAnswer{"", "Yes", "maybe ", "always"} {
		if a.Valid() {
			t.Errorf("%q is Valid", a)
		}
	}
}
