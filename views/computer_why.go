package views

import (
	"context"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/internal/locale"
)

// projectWhy says, in ctx's language, why a computer works for a project,
// or, for a project Cobble no longer gives it, why, and whether the
// computer is finishing its tasks for it or has left it (and when).
func projectWhy(ctx context.Context, d ComputerPage, pr accounting.ComputerProject) string {
	if pr.Assigned {
		if w := reasonWords(ctx, pr.Reason); w != "" {
			return w
		}
		return t(ctx, "computer.reason_assigned")
	}
	cause := t(ctx, "computer.cause_not_given")
	switch {
	case d.Settings.Choices[pr.ProjectID] == accounting.ChoiceNever:
		cause = t(ctx, "computer.cause_never_here")
	case d.Settings.Choices[pr.ProjectID] != accounting.ChoiceAlways && d.VolunteerChoice[pr.ProjectID] == accounting.ChoiceNever:
		cause = t(ctx, "computer.cause_never_all")
	}
	switch {
	case pr.Attached:
		return t(ctx, "computer.leaving", "Cause", cause)
	case pr.Listed != nil:
		return t(ctx, "computer.left_on", "Cause", cause, "Day", locale.From(ctx).Date(*pr.Listed))
	}
	return t(ctx, "computer.left", "Cause", cause)
}
