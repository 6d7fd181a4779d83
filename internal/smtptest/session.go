package smtptest

import (
	"io"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Mode is how the server answers SMTP clients. See Server.SetMode.
type Mode int

const (
	// Accept is the normal mode: every command gets a positive reply and
	// every message is stored.
	Accept Mode = iota
	// Hang accepts TCP connections and then never answers anything, not
	// even the greeting, until the server stops or the mode changes.
	Hang
	// TempFail answers 451 4.3.0 to MAIL FROM (and to DATA).
	TempFail
	// PermFail answers 550 5.7.1 to RCPT TO.
	PermFail
	// Drop sends the greeting and then closes the connection abruptly
	// when the client sends MAIL FROM (or DATA).
	Drop
)

// Replies the server gives in the failing modes and when authentication
// is missing.
var (
	errTempFail = &smtp.SMTPError{
		Code:         451,
		EnhancedCode: smtp.EnhancedCode{4, 3, 0},
		Message:      "Try again later",
	}
	errPermFail = &smtp.SMTPError{
		Code:         550,
		EnhancedCode: smtp.EnhancedCode{5, 7, 1},
		Message:      "Rejected",
	}
	errAuthRequired = &smtp.SMTPError{
		Code:         530,
		EnhancedCode: smtp.EnhancedCode{5, 7, 0},
		Message:      "Authentication required",
	}
	errConnDropped = &smtp.SMTPError{
		Code:         421,
		EnhancedCode: smtp.EnhancedCode{4, 4, 2},
		Message:      "Connection dropped",
	}
)

// session is one SMTP connection's transaction state. go-smtp calls its
// methods from the connection's goroutine only (Logout aside, which
// touches nothing).
type session struct {
	srv    *Server
	conn   *smtp.Conn
	authed bool
	from   string
	to     []string
}

// newSession is the go-smtp backend: one session per connection.
func (s *Server) newSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{srv: s, conn: c}, nil
}

// AuthMechanisms offers AUTH PLAIN.
func (ss *session) AuthMechanisms() []string {
	return []string{sasl.Plain}
}

// Auth checks AUTH PLAIN credentials against those given to RequireAuth.
func (ss *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if identity != "" && identity != user {
			return smtp.ErrAuthFailed
		}
		if !ss.srv.credentialsOK(user, pass) {
			return smtp.ErrAuthFailed
		}
		ss.authed = true
		return nil
	}), nil
}

// Mail starts a transaction, unless the mode or missing authentication
// says otherwise.
func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	mode, needAuth := ss.srv.policy()
	switch {
	case mode == TempFail:
		return errTempFail
	case mode == Drop:
		return ss.drop()
	case needAuth && !ss.authed:
		return errAuthRequired
	}
	ss.from = from
	return nil
}

// Rcpt adds a recipient, unless the server is in PermFail mode.
func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if mode, _ := ss.srv.policy(); mode == PermFail {
		return errPermFail
	}
	ss.to = append(ss.to, to)
	return nil
}

// Data reads the message and stores it, unless the mode changed since
// MAIL FROM to one that refuses it.
func (ss *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	switch mode, _ := ss.srv.policy(); mode {
	case TempFail:
		return errTempFail
	case PermFail:
		return errPermFail
	case Drop:
		return ss.drop()
	}
	msg, err := parseMessage(ss.from, ss.to, data)
	if err != nil {
		return &smtp.SMTPError{
			Code:         554,
			EnhancedCode: smtp.EnhancedCode{5, 6, 0},
			Message:      "Malformed message: " + err.Error(),
		}
	}
	ss.srv.store(msg)
	return nil
}

// drop closes the connection under go-smtp's feet; the reply it then
// tries to write goes nowhere.
func (ss *session) drop() error {
	_ = ss.conn.Conn().Close()
	return errConnDropped
}

// Reset forgets the current transaction (RSET, or after DATA).
func (ss *session) Reset() {
	ss.from = ""
	ss.to = nil
}

// Logout has nothing to free.
func (ss *session) Logout() error {
	return nil
}
