package reconcile_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The domain never depends on reconciliation: accounting imports nothing
// of package reconcile, directly or not.
func TestAccountingDoesNotImportReconcile(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/cobble-am/cobble/accounting").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/cobble-am/cobble/accounting") {
		t.Fatalf("go list -deps listed no accounting: %q", deps)
	}
	if slices.Contains(deps, "github.com/cobble-am/cobble/accounting/reconcile") {
		t.Error("package accounting imports package reconcile")
	}
}
