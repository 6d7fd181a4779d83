package accounting

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// checkPassword applies the rules every password follows, wherever one is
// chosen (sign-up, change, reset): Printable, at least MinPasswordLength
// characters, at most 200 bytes.
func checkPassword(v validation, password string) {
	v.check(Printable(password), "password", locale.M("form.not_printable"))
	v.check(utf8.RuneCountInString(password) >= MinPasswordLength, "password", locale.M("errors.field.password_too_short"))
	v.check(len(password) <= 200, "password", locale.M("errors.field.password_too_long"))
}

// CreateUser creates an account. A taken email (in any letter case) is ErrConflict.
func (s *AccountsStore) CreateUser(ctx context.Context, nu NewUser) (User, error) {
	u, err := s.insertUser(ctx, s.pool, nu)
	return u, op("create user", err)
}

// insertUser validates nu and inserts the account with q.
func (s *AccountsStore) insertUser(ctx context.Context, q querier, nu NewUser) (User, error) {
	if err := nu.Validate(); err != nil {
		return User{}, err
	}
	hash, err := s.hashPassword(boinc.PasswordHash(nu.Password, nu.Email))
	if err != nil {
		return User{}, err
	}
	row, err := q.Query(ctx, `
		INSERT INTO users (email, name, password_hash, is_admin)
		VALUES ($1, $2, $3, $4)
		RETURNING id, email, name, is_admin, time_zone, language, created_at`,
		nu.Email, nu.Name, hash, nu.IsAdmin)
	if err != nil {
		return User{}, err
	}
	u, err := pgx.CollectExactlyOneRow(row, pgx.RowToStructByName[User])
	return u, dbErr(err)
}

// userRow is a users row read with whether an admin disabled the account.
type userRow struct {
	User
	Disabled bool
}

// User returns the volunteer with id: ErrNotFound when there is none,
// ErrDisabled when an admin disabled the account (its web sessions end).
func (s *AccountsStore) User(ctx context.Context, id int64) (User, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT id, email, name, is_admin, time_zone, language, created_at, disabled_at IS NOT NULL AS disabled
		FROM users WHERE id = $1`, id)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[userRow])
	if err == nil && r.Disabled {
		err = ErrDisabled
	}
	return r.User, op("user", dbErr(err))
}

// Login checks an email and a plain password as typed on the web. It returns
// ErrUnknownAccount or ErrBadPassword when they do not match.
func (s *AccountsStore) Login(ctx context.Context, email, password string) (User, error) {
	u, err := s.checkPasswordHash(ctx, strings.TrimSpace(email), func(stored string) string {
		return boinc.PasswordHash(password, stored)
	})
	return u, op("login", err)
}

// checkPasswordHash finds the user by email and compares the BOINC password
// hash that hashFor computes from the stored email.
func (s *core) checkPasswordHash(ctx context.Context, email string, hashFor func(email string) string) (User, error) {
	var u User
	var stored string
	var disabled bool
	err := s.pool.QueryRow(ctx, `
		SELECT id, email, name, is_admin, time_zone, language, created_at, password_hash, disabled_at IS NOT NULL
		FROM users WHERE lower(email) = lower($1)`, email).
		Scan(&u.ID, &u.Email, &u.Name, &u.IsAdmin, &u.TimeZone, &u.Language, &u.CreatedAt, &stored, &disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		// The same bcrypt work as for an account, so that how long the
		// answer takes does not tell which emails have accounts. The answer
		// itself still says "no such account": rpc.php's reply for it is
		// what BOINC Manager shows a volunteer who mistyped the email.
		s.comparePassword(s.unknownHash(), []byte(hashFor(email)))
		return User{}, ErrUnknownAccount
	}
	if err != nil {
		return User{}, err
	}
	if s.comparePassword([]byte(stored), []byte(hashFor(u.Email))) != nil {
		return User{}, ErrBadPassword
	}
	if disabled {
		return User{}, ErrDisabled
	}
	return u, nil
}

func (s *core) hashPassword(boincHash string) (string, error) {
	h, err := s.generatePassword([]byte(boincHash), s.opts.PasswordCost)
	return string(h), err
}
