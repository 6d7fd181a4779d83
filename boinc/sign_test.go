package boinc

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
)

func TestFixtureKeyAndSignature(t *testing.T) {
	keyText, sigText := fixtureKeyAndSignature(t)
	pub, err := ParsePublicKeyText(keyText)
	if err != nil {
		t.Fatal(err)
	}
	if pub.N.BitLen() != KeyBits || pub.E != 65537 {
		t.Errorf("key has %d bits and exponent %d", pub.N.BitLen(), pub.E)
	}
	if err := VerifyURL(pub, fixtureURL, sigText); err != nil {
		t.Errorf("the accepted reply's signature does not verify: %v", err)
	}
	if err := VerifyURL(pub, "http://127.0.0.1:18641/proj", sigText); !errors.Is(err, ErrBadSignature) {
		t.Errorf("signature verifies for another URL: %v", err)
	}
	again, err := PublicKeyText(pub)
	if err != nil || again != keyText {
		t.Errorf("PublicKeyText(fixture key) = %q, %v; want the fixture text %q", again, err, keyText)
	}
}

var (
	testKeyOnce sync.Once
	testKey     *rsa.PrivateKey
)

// generatedKey returns one key generated for the whole test run.
func generatedKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	testKeyOnce.Do(func() {
		var err error
		if testKey, err = GenerateSigningKey(rand.Reader); err != nil {
			t.Fatal(err)
		}
	})
	if testKey == nil {
		t.Fatal("no test key")
	}
	return testKey
}

func TestGeneratedKeyRoundTrip(t *testing.T) {
	key := generatedKey(t)
	if key.N.BitLen() != KeyBits {
		t.Fatalf("generated key has %d bits", key.N.BitLen())
	}
	text, err := PublicKeyText(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	if len(lines) != 11 || lines[0] != "1024" || lines[9] != "." || lines[10] != "" {
		t.Errorf("key text layout:\n%s", text)
	}
	for _, l := range lines[1:9] {
		if len(l) != 64 || strings.ToLower(l) != l {
			t.Errorf("key line %q is not 64 lowercase hex digits", l)
		}
	}
	pub, err := ParsePublicKeyText(text)
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(&key.PublicKey) {
		t.Error("parsed key differs from the generated one")
	}
	again, err := PublicKeyText(pub)
	if err != nil || again != text {
		t.Errorf("round trip changed the text:\n%s\nvs\n%s (%v)", again, text, err)
	}
	if k, err := GenerateSigningKey(nil); err != nil || k.N.BitLen() != KeyBits {
		t.Errorf("GenerateSigningKey(nil) = %v", err)
	}
}

func TestSignURL(t *testing.T) {
	key := generatedKey(t)
	url := "https://www.example.org/project/"
	sig, err := SignURL(key, url)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(sig, "\n")
	if len(lines) != 6 || lines[4] != "." || lines[5] != "" {
		t.Errorf("signature text layout:\n%s", sig)
	}
	if again, _ := SignURL(key, url); again != sig {
		t.Error("signatures are not deterministic")
	}
	if err := VerifyURL(&key.PublicKey, url, sig); err != nil {
		t.Errorf("VerifyURL: %v", err)
	}
	raw, err := hex.DecodeString(strings.Join(lines[:4], ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.Hash(0), []byte(md5Hex(url)), raw); err != nil {
		t.Errorf("rsa.VerifyPKCS1v15: %v", err)
	}
	for _, tamperedURL := range []string{url + "x", "http://www.example.org/project/", strings.ToUpper(url)} {
		if err := VerifyURL(&key.PublicKey, tamperedURL, sig); !errors.Is(err, ErrBadSignature) {
			t.Errorf("VerifyURL(%q) = %v, want ErrBadSignature", tamperedURL, err)
		}
	}
	flipped := []byte(sig)
	flipped[10] ^= 1
	for _, bad := range []string{string(flipped), "", ".", "zz\n.", "abc\n.", sig + "x", sig[64:]} {
		if err := VerifyURL(&key.PublicKey, url, bad); !errors.Is(err, ErrBadSignature) {
			t.Errorf("VerifyURL(bad text %q) = %v, want ErrBadSignature", bad, err)
		}
	}
	if err := VerifyURL(&key.PublicKey, url, strings.ToUpper(strings.ReplaceAll(sig, "\n", "\r\n  "))); err != nil {
		t.Errorf("VerifyURL with upper case and extra white space: %v", err)
	}
}

func TestKeyErrors(t *testing.T) {
	big1100 := new(big.Int).Lsh(big.NewInt(1), 1100)
	for _, pub := range []*rsa.PublicKey{nil, {}, {N: big.NewInt(0), E: 3}, {N: big1100, E: 65537},
		{N: big.NewInt(35), E: 1}} {
		if _, err := PublicKeyText(pub); err == nil {
			t.Errorf("PublicKeyText(%v) succeeded", pub)
		}
	}
	if _, err := SignURL(nil, "u"); err == nil {
		t.Error("SignURL(nil) succeeded")
	}
	if _, err := SignURL(&rsa.PrivateKey{PublicKey: rsa.PublicKey{N: big1100, E: 65537}}, "u"); err == nil {
		t.Error("SignURL with an oversized key succeeded")
	}
	if err := VerifyURL(nil, "u", "00\n."); !errors.Is(err, ErrBadSignature) {
		t.Errorf("VerifyURL(nil key) = %v", err)
	}

	good, _ := fixtureKeyAndSignature(t)
	lines := strings.Split(good, "\n")
	withExp := func(e string) string {
		l := append([]string(nil), lines...)
		l[8] = strings.Repeat("0", 64-len(e)) + e
		return strings.Join(l, "\n")
	}
	for name, text := range map[string]string{
		"empty":          "",
		"bad bits":       "abc\n" + strings.Join(lines[1:], "\n"),
		"too many bits":  "2048\n" + strings.Join(lines[1:], "\n"),
		"wrong bits":     "1023\n" + strings.Join(lines[1:], "\n"),
		"short data":     strings.Join(append(lines[:8:8], "."), "\n"),
		"trailing text":  good + "junk",
		"non-hex":        strings.Replace(good, "b706", "xy06", 1),
		"exponent one":   withExp("01"),
		"huge exponent":  withExp("0100000000"),
		"zero exponent":  withExp("00"),
		"odd hex digits": strings.Replace(good, "b706", "b70", 1),
	} {
		if _, err := ParsePublicKeyText(text); err == nil {
			t.Errorf("ParsePublicKeyText(%s) succeeded", name)
		}
	}
	if _, err := ParsePublicKeyText("\r\n  " + strings.ReplaceAll(good, "\n", "\r\n") + "  "); err != nil {
		t.Errorf("ParsePublicKeyText with CRLF and white space: %v", err)
	}
}

func TestPasswordHash(t *testing.T) {
	// The captured requests carry 1b0c5653…, which is the hash of the
	// password "harness-pw", not of "harness-pass" as the fixtures'
	// README says: md5("harness-passharness-user") is a51b6944….
	if got := PasswordHash("harness-pw", "harness-user"); got != "1b0c5653828265b442b07e297a78bea8" {
		t.Errorf("PasswordHash = %s, want the captured client's value", got)
	}
	if got := PasswordHash("harness-pass", "harness-user"); got != "a51b6944de45636d8b2f4326b5e598be" {
		t.Errorf("PasswordHash(harness-pass) = %s", got)
	}
	if PasswordHash("harness-pass", "Harness-USER") != PasswordHash("harness-pass", "harness-user") {
		t.Error("the email is not lowered")
	}
	// The client lowers ASCII only: "É" stays as it is.
	if got, want := PasswordHash("p", "É@X.org"), md5Hex("pÉ@x.org"); got != want {
		t.Errorf("PasswordHash with non-ASCII email = %s, want %s", got, want)
	}
	if got, want := PasswordHash("p", "A\xff"), md5Hex("pa\xff"); got != want {
		t.Errorf("PasswordHash with invalid UTF-8 = %s, want %s", got, want)
	}
}
