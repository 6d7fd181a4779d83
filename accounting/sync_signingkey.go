package accounting

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/cobble-am/cobble/boinc"
)

// SigningKey returns the RSA key that signs project URLs. The first call on a
// new database generates it; every later call, on any Cobble instance, returns
// the same key, because BOINC clients refuse a reply whose key changed.
func (s *SyncStore) SigningKey(ctx context.Context) (*rsa.PrivateKey, error) {
	var pemText string
	err := s.pool.QueryRow(ctx, `SELECT private_pem FROM signing_key`).Scan(&pemText)
	if errors.Is(dbErr(err), ErrNotFound) {
		pemText, err = s.createSigningKey(ctx)
	}
	if err != nil {
		return nil, op("signing key", err)
	}
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, op("signing key", errors.New("stored key is not PEM"))
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil, op("signing key", fmt.Errorf("stored key: %w", err))
	}
	return key, nil
}

// createSigningKey stores a new key unless another instance got there first,
// and returns whichever key is stored.
func (s *SyncStore) createSigningKey(ctx context.Context) (string, error) {
	key, err := boinc.GenerateSigningKey(rand.Reader)
	if err != nil {
		return "", err
	}
	pemText := string(pem.EncodeToMemory(&pem.Block{
		Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO signing_key (private_pem) VALUES ($1) ON CONFLICT DO NOTHING`, pemText); err != nil {
		return "", err
	}
	err = s.pool.QueryRow(ctx, `SELECT private_pem FROM signing_key`).Scan(&pemText)
	return pemText, err
}
