package accounting_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cobble-am/cobble/accounting"
)

// An instance listening for changes hears of a catalog change and of a
// renewed feed token made on another instance as they commit, after the
// word to forget everything that its connection brings.
func TestListenChanges(t *testing.T) {
	t.Parallel()
	_, stores := newInstances(t, 2)
	listener, other := stores[0], stores[1]
	changes := make(chan accounting.Change, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		listener.ListenChanges(ctx, slog.New(slog.DiscardHandler), func(c accounting.Change) { changes <- c })
	}()
	defer func() { cancel(); <-done }()
	next := func() accounting.Change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case <-t.Context().Done():
			t.Fatal("no change heard before the test's deadline")
			return accounting.Change{}
		}
	}
	if c := next(); !c.All || !listener.Listening() {
		t.Fatalf("first change %+v (listening %v), want All", c, listener.Listening())
	}
	if _, err := other.Catalog.AddProject(ctx, accounting.Project{URL: "https://one.example.org/", Name: "One", Authenticator: "k"}); err != nil {
		t.Fatal(err)
	}
	if c := next(); !c.Catalog {
		t.Errorf("after a project was added: %+v, want Catalog", c)
	}
	u, err := other.Accounts.SignUp(ctx, accounting.NewUser{Email: "vol@example.org", Name: "Vol", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Accounts.RenewFeedToken(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if c := next(); c.FeedUser != u.ID {
		t.Errorf("after a feed token was renewed: %+v, want FeedUser %d", c, u.ID)
	}
	cancel()
	<-done
	if listener.Listening() {
		t.Error("still listening after ctx ended")
	}
}
