package accounting

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// FeedToken returns the secret token in the address of a volunteer's
// notices feed, or ErrNotFound.
func (s *AccountsStore) FeedToken(ctx context.Context, userID int64) (string, error) {
	var token string
	err := s.pool.QueryRow(ctx, `SELECT feed_token FROM users WHERE id = $1`, userID).Scan(&token)
	return token, op("feed token", dbErr(err))
}

// UserByFeedToken returns the volunteer whose notices feed token is token,
// or ErrNotFound: also when an admin disabled the account, whose feed
// stops with it.
func (s *AccountsStore) UserByFeedToken(ctx context.Context, token string) (User, error) {
	if len(token) != 64 {
		return User{}, op("user by feed token", ErrNotFound)
	}
	rows, _ := s.pool.Query(ctx, `
		SELECT id, email, name, is_admin, time_zone, language, created_at
		FROM users WHERE feed_token = $1 AND disabled_at IS NULL`, token)
	u, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
	return u, op("user by feed token", dbErr(err))
}

// RenewFeedToken gives a volunteer a new notices feed token: the old feed
// address stops working.
func (s *AccountsStore) RenewFeedToken(ctx context.Context, userID int64) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET feed_token = $2 WHERE id = $1`, userID,
		randomToken()+randomToken())
	if err == nil && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("renew feed token", err)
}
