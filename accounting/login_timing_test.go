package accounting

import (
	"context"
	"errors"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/internal/testdb"
)

// A log-in with an unknown email does the same password work as one with
// a known email and a wrong password, so that timing does not tell which
// emails have accounts.
func TestUnknownEmailCostsAPasswordCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewStore(testdb.New(t), Options{PasswordCost: bcrypt.MinCost})
	if _, err := s.Accounts.CreateUser(ctx, NewUser{Email: "known@example.org", Password: "long-enough"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var costs []int
	s.comparePassword = func(hashed, password []byte) error {
		cost, err := bcrypt.Cost(hashed)
		if err != nil {
			t.Errorf("compared against something that is not a bcrypt hash: %v", err)
		}
		mu.Lock()
		costs = append(costs, cost)
		mu.Unlock()
		return bcrypt.CompareHashAndPassword(hashed, password)
	}
	check := func(name string, err error, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	_, err := s.Accounts.Login(ctx, "known@example.org", "wrong-pass")
	check("known email, wrong password", err, ErrBadPassword)
	_, err = s.Accounts.Login(ctx, "nobody@example.org", "wrong-pass")
	check("unknown email", err, ErrUnknownAccount)
	_, err = s.Sync.Sync(ctx, SyncRequest{Email: "nobody@example.org", PasswordHash: "0123456789abcdef0123456789abcdef"})
	check("unknown email over RPC", err, ErrUnknownAccount)
	if len(costs) != 3 || costs[1] != costs[0] || costs[2] != costs[0] {
		t.Errorf("bcrypt costs of the three checks: %v, want three equal", costs)
	}
}
