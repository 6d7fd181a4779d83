package boinc

import (
	"crypto"
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// KeyBits is the size of Cobble's signing key. BOINC clients hold keys
// and signatures in 128-byte fields, so no larger key can work.
const KeyBits = 1024

// keyFieldLen is the size of each field of a key in BOINC's text form.
const keyFieldLen = KeyBits / 8

// ErrBadSignature is wrapped by the errors VerifyURL returns.
var ErrBadSignature = errors.New("boinc: bad URL signature")

// GenerateSigningKey generates a new KeyBits-bit RSA key with public
// exponent 65537. random is passed to rsa.GenerateKey, which since Go 1.26
// ignores it and always uses a secure source of randomness (unless
// GODEBUG=cryptocustomrand=1); nil is allowed. It fails only if key
// generation fails, for example when Go runs in a FIPS 140 mode that
// refuses 1024-bit keys.
func GenerateSigningKey(random io.Reader) (*rsa.PrivateKey, error) {
	if random == nil {
		random = rand.Reader
	}
	key, err := rsa.GenerateKey(random, KeyBits)
	if err != nil {
		return nil, fmt.Errorf("boinc: generating signing key: %w", err)
	}
	return key, nil
}

// PublicKeyText returns pub in the text form BOINC clients read from a
// reply's <signing_key>: a line with the modulus size in bits, then the
// modulus and the exponent, each as 128 big-endian bytes, in lowercase hex
// of 64 digits a line, then a line ".". The text ends with a newline.
// It returns an error if pub is nil, its modulus is not positive or is
// longer than KeyBits, or its exponent is less than 2.
func PublicKeyText(pub *rsa.PublicKey) (string, error) {
	if pub == nil || pub.N == nil || pub.N.Sign() <= 0 {
		return "", errors.New("boinc: public key has no modulus")
	}
	if pub.N.BitLen() > KeyBits {
		return "", fmt.Errorf("boinc: public key has %d bits; BOINC clients take at most %d",
			pub.N.BitLen(), KeyBits)
	}
	if pub.E < 2 {
		return "", fmt.Errorf("boinc: public key exponent %d is invalid", pub.E)
	}
	data := make([]byte, 2*keyFieldLen)
	pub.N.FillBytes(data[:keyFieldLen])
	big.NewInt(int64(pub.E)).FillBytes(data[keyFieldLen:])
	var b strings.Builder
	b.WriteString(strconv.Itoa(pub.N.BitLen()))
	b.WriteByte('\n')
	writeHexLines(&b, data)
	return b.String(), nil
}

// ParsePublicKeyText parses the text form written by PublicKeyText.
// Surrounding white space and white space between the hex digits are
// ignored, and the final "." line may be missing. It returns an error if
// the bits line is not a number from 1 to KeyBits, the hex data is not
// exactly 256 bytes, the modulus does not have exactly the stated number
// of bits, the exponent is less than 2 or above 2³¹−1, or anything
// follows the "." line.
func ParsePublicKeyText(text string) (*rsa.PublicKey, error) {
	bitsLine, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	bits, err := strconv.Atoi(strings.TrimSpace(bitsLine))
	if err != nil || bits < 1 || bits > KeyBits {
		return nil, fmt.Errorf("boinc: key text: bad bits line %q", bitsLine)
	}
	data, err := parseHexBlock(rest)
	if err != nil {
		return nil, fmt.Errorf("boinc: key text: %w", err)
	}
	if len(data) != 2*keyFieldLen {
		return nil, fmt.Errorf("boinc: key text: %d bytes of key data, want %d",
			len(data), 2*keyFieldLen)
	}
	n := new(big.Int).SetBytes(data[:keyFieldLen])
	if n.BitLen() != bits {
		return nil, fmt.Errorf("boinc: key text: modulus has %d bits, bits line says %d",
			n.BitLen(), bits)
	}
	e := new(big.Int).SetBytes(data[keyFieldLen:])
	if !e.IsInt64() || e.Int64() < 2 || e.Int64() > math.MaxInt32 {
		return nil, errors.New("boinc: key text: exponent out of range")
	}
	return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
}

// SignURL returns the text of key's signature of a project URL, which
// the client checks before attaching to a project named in a reply: the
// RSA PKCS #1 v1.5 signature, without a DigestInfo prefix, of the 32
// lowercase hex digits of MD5(url), as lowercase hex of 64 digits a line
// followed by a line ".". url must be exactly the text sent in <url>.
// It returns an error if key is nil or longer than KeyBits, or if signing
// fails (Go refuses keys shorter than 1024 bits, and a FIPS 140 mode may
// refuse the key or the unhashed signature).
func SignURL(key *rsa.PrivateKey, url string) (string, error) {
	if key == nil || key.N == nil {
		return "", errors.New("boinc: no signing key")
	}
	if key.N.BitLen() > KeyBits {
		return "", fmt.Errorf("boinc: signing key has %d bits; BOINC clients take at most %d",
			key.N.BitLen(), KeyBits)
	}
	// crypto.Hash(0) makes rsa sign the given bytes directly, which is
	// what BOINC's "private encrypt" of the hex digest amounts to. The
	// random argument is ignored by crypto/rsa and may be nil.
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.Hash(0), []byte(md5Hex(url)))
	if err != nil {
		return "", fmt.Errorf("boinc: signing %q: %w", url, err)
	}
	var b strings.Builder
	writeHexLines(&b, sig)
	return b.String(), nil
}

// VerifyURL checks that signatureText, as SignURL writes it, is pub's
// signature of url. The error wraps ErrBadSignature if the text is not
// hex of the key's size or the signature does not match.
func VerifyURL(pub *rsa.PublicKey, url, signatureText string) error {
	if pub == nil || pub.N == nil {
		return fmt.Errorf("%w: no public key", ErrBadSignature)
	}
	sig, err := parseHexBlock(signatureText)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	if want := (pub.N.BitLen() + 7) / 8; len(sig) != want {
		return fmt.Errorf("%w: %d bytes, want %d", ErrBadSignature, len(sig), want)
	}
	if err := rsa.VerifyPKCS1v15(pub, crypto.Hash(0), []byte(md5Hex(url)), sig); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	return nil
}

// PasswordHash returns the hash a BOINC client sends in <password_hash>:
// the lowercase hex MD5 of password followed by email in lower case. Like
// the client, it lowers ASCII letters only.
func PasswordHash(password, email string) string {
	return md5Hex(password + asciiLower(email))
}

// md5Hex returns the lowercase hex MD5 digest of s.
func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// asciiLower maps the ASCII letters of s to lower case and leaves every
// other byte, valid UTF-8 or not, as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// writeHexLines writes data as lowercase hex, 32 bytes a line, then a
// line ".".
func writeHexLines(b *strings.Builder, data []byte) {
	for len(data) > 0 {
		n := min(len(data), 32)
		b.WriteString(hex.EncodeToString(data[:n]))
		b.WriteByte('\n')
		data = data[n:]
	}
	b.WriteString(".\n")
}

// parseHexBlock decodes hex digits up to a "." line (or the end of s),
// ignoring white space. Anything but white space after the "." is an
// error, as is a character that is not a hex digit or an odd number of
// digits.
func parseHexBlock(s string) ([]byte, error) {
	body, tail, _ := strings.Cut(s, ".")
	if strings.TrimSpace(tail) != "" {
		return nil, errors.New("text after the final '.'")
	}
	digits := strings.Join(strings.Fields(body), "")
	data, err := hex.DecodeString(digits)
	if err != nil {
		return nil, fmt.Errorf("bad hex data: %w", err)
	}
	return data, nil
}
