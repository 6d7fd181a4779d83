package accounting_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A token's secret is shown once and only its hash is stored; it finds
// its volunteer until revoked; its use is written at most once a minute;
// its requests are counted per minute; names are checked; at most
// MaxAPITokens are held and MaxAPITokenCreations made an hour.
func TestAPITokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := storeAndPool(t)
	ada, err1 := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "ada@example.org", Password: "first-pass"})
	bob, err2 := s.Accounts.CreateUser(ctx, accounting.NewUser{Email: "bob@example.org", Password: "first-pass"})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	hour := now.Truncate(time.Hour)
	tok, err := s.API.CreateAPIToken(ctx, ada.ID, "  my script  ", hour)
	if err != nil || tok.Name != "my script" || !accounting.WellFormedAPISecret(tok.Secret) {
		t.Fatalf("CreateAPIToken: %+v %v", tok, err)
	}
	var stored int
	pool.QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE position(convert_to($1, 'UTF8') IN secret_hash) > 0
		OR name = $1`, tok.Secret).Scan(&stored)
	if stored != 0 {
		t.Error("the secret is stored as it is")
	}

	c, err := s.API.AuthenticateAPI(ctx, tok.Secret, "192.0.2.1", now.Truncate(time.Minute), now)
	if err != nil || c.User.ID != ada.ID || c.TokenID != tok.ID || c.Requests != 1 || c.User.Email != ada.Email {
		t.Fatalf("AuthenticateAPI: %+v %v", c, err)
	}
	c, _ = s.API.AuthenticateAPI(ctx, tok.Secret, "192.0.2.2", now.Truncate(time.Minute), now.Add(time.Second))
	if c.Requests != 2 {
		t.Errorf("second request counted as %d", c.Requests)
	}
	list, err := s.API.APITokens(ctx, ada.ID)
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil || list[0].LastUsedFrom != "192.0.2.1" {
		t.Fatalf("APITokens after two uses within a minute: %+v %v (want the first use noted only)", list, err)
	}
	later := now.Add(2 * time.Minute)
	c, _ = s.API.AuthenticateAPI(ctx, tok.Secret, "192.0.2.3", later.Truncate(time.Minute), later)
	list, _ = s.API.APITokens(ctx, ada.ID)
	if c.Requests != 1 || list[0].LastUsedFrom != "192.0.2.3" || !list[0].LastUsedAt.Equal(later.Truncate(time.Microsecond)) {
		t.Errorf("a new minute: count %d, last used %v from %q", c.Requests, list[0].LastUsedAt, list[0].LastUsedFrom)
	}

	for _, bad := range []string{"", "cobble_", tok.Secret + "x", strings.TrimPrefix(tok.Secret, "cobble_"),
		"cobble_" + strings.Repeat("A", 43)} {
		if _, err := s.API.AuthenticateAPI(ctx, bad, "", now, now); !errors.Is(err, accounting.ErrNotFound) {
			t.Errorf("AuthenticateAPI(%q): %v, want ErrNotFound", bad, err)
		}
	}
	if err := s.API.RevokeAPIToken(ctx, bob.ID, tok.ID); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("another volunteer revoked it: %v", err)
	}
	if err := s.API.RevokeAPIToken(ctx, ada.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.API.AuthenticateAPI(ctx, tok.Secret, "", now, now); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("a revoked token: %v, want ErrNotFound", err)
	}

	for _, name := range []string{"", "   ", strings.Repeat("x", 101), "a<b", "tab\there"} {
		var verr *accounting.ValidationError
		if _, err := s.API.CreateAPIToken(ctx, ada.ID, name, hour); !errors.As(err, &verr) || verr.Fields["name"].ID == "" {
			t.Errorf("name %q: %v, want a ValidationError on name", name, err)
		}
	}
	for i := range accounting.MaxAPITokens {
		if _, err := s.API.CreateAPIToken(ctx, ada.ID, "token", hour); err != nil {
			t.Fatalf("token %d: %v", i+1, err)
		}
	}
	var verr *accounting.ValidationError
	if _, err := s.API.CreateAPIToken(ctx, ada.ID, "one too many", hour); !errors.As(err, &verr) {
		t.Errorf("token %d: %v, want a ValidationError", accounting.MaxAPITokens+1, err)
	}
	limited := 0
	for range accounting.MaxAPITokenCreations {
		t2, err := s.API.CreateAPIToken(ctx, bob.ID, "churn", hour)
		if errors.Is(err, accounting.ErrLimited) {
			limited++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := s.API.RevokeAPIToken(ctx, bob.ID, t2.ID); err != nil {
			t.Fatal(err)
		}
	}
	// Ada made 11 this hour (one refused), so Bob's own count is separate.
	if limited != 0 {
		t.Errorf("%d of Bob's first %d were refused", limited, accounting.MaxAPITokenCreations)
	}
	if _, err := s.API.CreateAPIToken(ctx, bob.ID, "churn", hour); !errors.Is(err, accounting.ErrLimited) {
		t.Errorf("creation %d in an hour: %v, want ErrLimited", accounting.MaxAPITokenCreations+1, err)
	}
	next, err := s.API.CreateAPIToken(ctx, bob.ID, "next hour", hour.Add(time.Hour))
	if err != nil {
		t.Fatalf("the next hour: %v", err)
	}

	if _, err := pool.Exec(ctx, `UPDATE users SET disabled_at = now() WHERE id = $1`, bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.API.AuthenticateAPI(ctx, next.Secret, "", now, now); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("a disabled volunteer's token: %v, want ErrNotFound", err)
	}
	var n int
	pool.QueryRow(ctx, `SELECT count(*) FROM api_token_counts WHERE user_id = $1`, bob.ID).Scan(&n)
	if n != 0 {
		t.Errorf("a disabled volunteer's refused requests were counted (%d)", n)
	}
}
