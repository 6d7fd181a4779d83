package handlers

import (
	"crypto/rsa"

	"github.com/cobble-am/cobble/accounting/cache"
	"github.com/cobble-am/cobble/boinc"
)

// maxCachedSignatures bounds the signature cache: the catalog is small, and
// URLs a client reports must not grow memory without end.
const maxCachedSignatures = 4096

// signer signs project URLs with the AM key. Signatures are deterministic,
// so each URL is signed once and remembered.
type signer struct {
	key     *rsa.PrivateKey
	keyText string
	sigs    *cache.Cache[string, string] // url → signature text
}

func newSigner(key *rsa.PrivateKey) (*signer, error) {
	text, err := boinc.PublicKeyText(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &signer{key: key, keyText: text,
		sigs: cache.New[string](cache.Options[string]{Max: maxCachedSignatures})}, nil
}

func (s *signer) sign(url string) (string, error) {
	if sig, ok := s.sigs.Get(url); ok {
		return sig, nil
	}
	sig, err := boinc.SignURL(s.key, url)
	if err != nil {
		return "", err
	}
	s.sigs.Put(url, sig)
	return sig, nil
}
