package accounting

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/cobble-am/cobble/internal/locale"
)

// Two-factor sign-in uses TOTP (RFC 6238) as authenticator apps know it:
// SHA-1, 6 digits, a code every 30 seconds. A code is accepted from the
// step before to the step after now, so that a clock a little off or a
// code typed late still works, and only once (see AccessStore.CheckCode).
const (
	CodePeriod    = 30 // seconds per time step
	codeSkew      = 1  // steps either side of now
	codeDigits    = otp.DigitsSix
	RecoveryCodes = 10 // how many recovery codes enabling makes
	recoveryBytes = 10 // 80 random bits per recovery code
)

var (
	// ErrBadCode means a two-factor or recovery code did not match.
	ErrBadCode = errors.New("wrong code")
	// ErrCodeUsed means the code matched but was used already: a TOTP
	// code of a time step no later than the last one accepted, or a
	// recovery code spent before.
	ErrCodeUsed = errors.New("code used already")
)

// TwoFactorKey is a new TOTP secret and the otpauth:// URI that carries it
// to an authenticator app (as text or in a QR code).
type TwoFactorKey struct {
	Secret string // base32, without padding
	URI    string
}

// NewTwoFactorKey makes a random 160-bit secret for account (the
// volunteer's email) at issuer (the account manager's name).
func NewTwoFactorKey(issuer, account string) (TwoFactorKey, error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account,
		Period: CodePeriod, Digits: codeDigits, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return TwoFactorKey{}, err
	}
	return TwoFactorKey{Secret: k.Secret(), URI: k.URL()}, nil
}

// ValidSecret reports whether s can be a secret NewTwoFactorKey made.
func ValidSecret(s string) bool {
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	return err == nil && len(b) >= 10 && len(b) <= 64
}

// codeStep returns the time step at t.
func codeStep(t time.Time) int64 { return t.Unix() / CodePeriod }

// NormalizeCode returns a typed TOTP code without spaces, or a
// ValidationError on field when it is not 6 digits.
func NormalizeCode(code, field string) (string, error) {
	code = strings.Join(strings.Fields(code), "")
	ok := len(code) == codeDigits.Length()
	for _, c := range code {
		ok = ok && c >= '0' && c <= '9'
	}
	if !ok {
		return "", &ValidationError{Fields: map[string]locale.Msg{field: locale.M("errors.field.code_format")}}
	}
	return code, nil
}

// matchStep returns the time step within the skew of now whose code is
// code (already normalized), or false.
func matchStep(secret, code string, now time.Time) (int64, bool) {
	opts := totp.ValidateOpts{Period: CodePeriod, Digits: codeDigits, Algorithm: otp.AlgorithmSHA1}
	found, match := int64(0), false
	for step := codeStep(now) - codeSkew; step <= codeStep(now)+codeSkew; step++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*CodePeriod, 0), opts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && !match {
			found, match = step, true
		}
	}
	return found, match
}

// newRecoveryCodes returns RecoveryCodes fresh codes, as shown to the
// volunteer: 16 letters and digits in groups of four.
func newRecoveryCodes() []string {
	codes := make([]string, RecoveryCodes)
	for i := range codes {
		b := make([]byte, recoveryBytes)
		rand.Read(b) // never fails (crypto/rand)
		s := strings.ToLower(base32.StdEncoding.EncodeToString(b))
		codes[i] = s[0:4] + "-" + s[4:8] + "-" + s[8:12] + "-" + s[12:16]
	}
	return codes
}

// recoveryHash returns the SHA-256 of a recovery code as typed (any
// letter case, dashes and spaces ignored), or a ValidationError on field
// when it cannot be one.
func recoveryHash(code, field string) ([]byte, error) {
	c := strings.ToLower(strings.NewReplacer("-", "", " ", "", "\t", "").Replace(code))
	ok := len(c) == 16
	for _, r := range c {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '2' && r <= '7')
	}
	if !ok {
		return nil, &ValidationError{Fields: map[string]locale.Msg{field: locale.M("errors.field.recovery_format")}}
	}
	h := sha256.Sum256([]byte(c))
	return h[:], nil
}
