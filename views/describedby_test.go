package views

import (
	"reflect"
	"testing"

	"github.com/a-h/templ"

	"github.com/cobble-am/cobble/internal/locale"
)

// A field whose id is not its name is marked invalid and tied to its
// error only when it has one, and keeps its note either way.
func TestDescribedBy(t *testing.T) {
	bad := Fields{"name": locale.Text("Too long.")}
	for _, c := range []struct {
		errs Fields
		note string
		want templ.Attributes
	}{
		{nil, "", templ.Attributes{}},
		{nil, "computer-name-note", templ.Attributes{"aria-describedby": "computer-name-note"}},
		{bad, "", templ.Attributes{"aria-invalid": "true", "aria-describedby": "location-new-error"}},
		{bad, "computer-name-note", templ.Attributes{"aria-invalid": "true",
			"aria-describedby": "computer-name-note location-new-error"}},
	} {
		if got := describedBy(c.errs, "name", "location-new", c.note); !reflect.DeepEqual(got, c.want) {
			t.Errorf("describedBy(%v, note %q) = %v, want %v", c.errs, c.note, got, c.want)
		}
	}
}
