package handlers

import (
	"testing"
	"time"

	"github.com/cobble-am/cobble/boinc"
)

// A URL is signed once: later calls return the remembered signature, which
// the key's public half verifies.
func TestSignerRemembers(t *testing.T) {
	t.Parallel()
	key, err := boinc.GenerateSigningKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://einsteinathome.org/"
	sig, err := s.sign(url)
	if err != nil {
		t.Fatal(err)
	}
	if err := boinc.VerifyURL(&key.PublicKey, url, sig); err != nil {
		t.Fatal(err)
	}
	s.key = nil // signing afresh would now fail
	if again, err := s.sign(url); err != nil || again != sig {
		t.Errorf("second signature not remembered: %v", err)
	}
	if _, err := s.sign("https://other.example/"); err == nil {
		t.Error("a new URL signed without a key")
	}
}

// Feed tokens are reused for feedTokenTTL on the clock given, not longer.
func TestFeedTokensExpire(t *testing.T) {
	t.Parallel()
	now := t0
	c := newFeedTokens(func() time.Time { return now })
	c.Put(7, "token")
	now = now.Add(feedTokenTTL - time.Second)
	if tok, ok := c.Get(7); !ok || tok != "token" {
		t.Errorf("before the TTL: %q, %v", tok, ok)
	}
	now = now.Add(time.Second)
	if _, ok := c.Get(7); ok {
		t.Error("a token reused after feedTokenTTL")
	}
}
