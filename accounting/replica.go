package accounting

import "time"

// ReplicaStatus is what an instance last learnt of its read replica.
type ReplicaStatus struct {
	// Configured says that the instance has a replica at all.
	Configured bool
	// Reachable says that it answered the last check as a standby.
	Reachable bool
	// InUse says that reads meant for it go to it now.
	InUse bool
	// Lag is how far its replay was behind the primary at the last check:
	// 0 when it had replayed everything the primary had written.
	Lag time.Duration
	// CheckedAt is when it was last checked; zero before the first check.
	CheckedAt time.Time
	// Problem says why it is not in use, in words for an admin.
	Problem string
}
