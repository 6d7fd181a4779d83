package accounting

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// certificateColumns are a certificate's columns in Certificate's order.
const certificateColumns = `code, name, from_day::timestamp AT TIME ZONE 'UTC', to_day::timestamp AT TIME ZONE 'UTC',
	confirmed_micro / 1e6, estimated_micro / 1e6, projects, language, issued_at, withdrawn_at`

// scanCertificate reads certificateColumns.
func scanCertificate(row pgx.Row) (Certificate, error) {
	var c Certificate
	err := row.Scan(&c.Code, &c.Name, &c.From, &c.To, &c.Confirmed, &c.Estimated, &c.Projects, &c.Language,
		&c.IssuedAt, &c.WithdrawnAt)
	c.From, c.To = c.From.UTC(), c.To.UTC()
	return c, err
}

// certificateCode returns a new verification code: 130 random bits as 26
// lower-case base32 letters, which no one can guess.
func certificateCode() string {
	b := make([]byte, 17)
	rand.Read(b)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))[:26]
}

// IssueCertificate certifies the volunteer's credit on the days req asks
// for, read from the rollups, and returns the certificate. Its last day is
// the last the rollups hold when req asks for later ones, so that it
// states the days its figures cover. A *ValidationError for a bad name or
// days (today is the volunteer's day) or a first day after the rollups'
// last, ErrLimited when they keep MaxCertificates already.
func (s *PublicStore) IssueCertificate(ctx context.Context, userID int64, req CertificateRequest, today time.Time) (Certificate, error) {
	if err := req.Validate(today); err != nil {
		return Certificate{}, op("issue certificate", err)
	}
	through, err := s.ledger.RolledThrough(ctx)
	if err != nil {
		return Certificate{}, op("issue certificate", err)
	}
	if err := req.settledThrough(through); err != nil {
		return Certificate{}, op("issue certificate", err)
	}
	projects, err := s.ledger.RolledProjects(ctx, userID, req.From, req.To)
	if err != nil {
		return Certificate{}, op("issue certificate", err)
	}
	c := Certificate{Code: certificateCode(), Name: req.Name, From: req.From, To: req.To, Language: req.Language}
	for _, p := range projects {
		c.Confirmed += p.Confirmed
		c.Estimated += p.Estimated
		c.Projects = append(c.Projects, p.Name)
	}
	if c.Projects == nil {
		c.Projects = []string{}
	}
	err = s.tx(ctx, func(tx pgx.Tx) error {
		// Counted and inserted under the volunteer's lock: certificates
		// issued at once are counted one after the other.
		if err := lockVolunteer(ctx, tx, userID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM certificates WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxCertificates {
			return ErrLimited
		}
		return tx.QueryRow(ctx, `
			INSERT INTO certificates (user_id, code, name, from_day, to_day, confirmed_micro, estimated_micro, projects, language)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING issued_at`,
			userID, c.Code, c.Name, c.From, c.To, inMicro(c.Confirmed), inMicro(c.Estimated), c.Projects, c.Language).
			Scan(&c.IssuedAt)
	})
	return c, op("issue certificate", err)
}

// inMicro turns Cobblestones into whole millionths.
func inMicro(v float64) int64 { return int64(math.Round(v * 1e6)) }

// Certificate returns the certificate with the verification code, for
// anyone: ErrNotFound when there is none, ErrWithdrawn when its volunteer
// withdrew it (and nothing of it).
func (s *PublicStore) Certificate(ctx context.Context, code string) (Certificate, error) {
	if len(code) != 26 || strings.Trim(code, "abcdefghijklmnopqrstuvwxyz234567") != "" {
		return Certificate{}, op("certificate", ErrNotFound)
	}
	c, err := scanCertificate(s.pool.QueryRow(ctx, `SELECT `+certificateColumns+`
		FROM certificates WHERE code = $1`, code))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = ErrNotFound
	case err == nil && c.WithdrawnAt != nil:
		c, err = Certificate{}, ErrWithdrawn
	}
	return c, op("certificate", err)
}

// OwnsCertificate reports whether the volunteer issued the certificate.
func (s *PublicStore) OwnsCertificate(ctx context.Context, userID int64, code string) (bool, error) {
	var mine bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM certificates WHERE user_id = $1 AND code = $2)`,
		userID, code).Scan(&mine)
	return mine, op("owns certificate", err)
}

// Certificates returns the volunteer's certificates, newest first, the
// withdrawn ones too.
func (s *PublicStore) Certificates(ctx context.Context, userID int64) ([]Certificate, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+certificateColumns+` FROM certificates WHERE user_id = $1
		ORDER BY issued_at DESC, code`, userID)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Certificate, error) { return scanCertificate(r) })
	return out, op("certificates", err)
}

// WithdrawCertificate withdraws one of the volunteer's certificates: its
// page is gone from then on. ErrNotFound when it is not theirs.
func (s *PublicStore) WithdrawCertificate(ctx context.Context, userID int64, code string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE certificates SET withdrawn_at = coalesce(withdrawn_at, now())
		WHERE user_id = $1 AND code = $2`, userID, code)
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("withdraw certificate", err)
}
