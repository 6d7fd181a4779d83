package accounting

// Change is a change another instance (or anyone) made to something an
// instance keeps in memory.
type Change struct {
	// All says that changes may have been missed (the listener was
	// disconnected): forget everything.
	All bool
	// Catalog says that the project catalog changed.
	Catalog bool
	// FeedUser is the volunteer whose notices-feed token changed; 0 if none.
	FeedUser int64
}
