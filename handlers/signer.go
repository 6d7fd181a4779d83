package handlers

import (
	"crypto/rsa"
	"sync"

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

	mu    sync.RWMutex
	cache map[string]string // url → signature text
}

func newSigner(key *rsa.PrivateKey) (*signer, error) {
	text, err := boinc.PublicKeyText(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &signer{key: key, keyText: text, cache: map[string]string{}}, nil
}

func (s *signer) sign(url string) (string, error) {
	s.mu.RLock()
	sig, ok := s.cache[url]
	s.mu.RUnlock()
	if ok {
		return sig, nil
	}
	sig, err := boinc.SignURL(s.key, url)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	if len(s.cache) < maxCachedSignatures {
		s.cache[url] = sig
	}
	s.mu.Unlock()
	return sig, nil
}
