package accounting

import "log/slog"

// Options tune the domain's decisions.
type Options struct {
	// MaxProjects is the most projects a host works for at once (default 4).
	MaxProjects int
	// Log receives what no caller can be told: warnings that must not
	// fail an RPC. nil discards them.
	Log *slog.Logger
	// PasswordCost is the bcrypt cost of stored password hashes (default
	// bcrypt.DefaultCost). Tests use bcrypt.MinCost; a hash keeps the cost
	// it was made with, so changing this never locks anyone out.
	PasswordCost int
	// Failing are the thresholds of the failing-computer warnings
	// (FailingThresholds; zero fields take their defaults).
	Failing FailingThresholds
}
