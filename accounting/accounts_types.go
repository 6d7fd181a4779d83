package accounting

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cobble-am/cobble/internal/locale"
)

// Confirmed is what following a confirmation link did.
type Confirmed struct {
	UserID  int64
	Email   string // the address confirmed
	Changed bool   // the address is new: an email change took effect
}

// Signup is a sign-up waiting for its link to be followed.
type Signup struct {
	Email string
	Name  string
}

// User is a volunteer (or an admin, who is a volunteer too).
type User struct {
	ID    int64
	Email string
	// Name is the name the volunteer typed, "" when they gave none.
	// Accounts made before issue 45 got their email's local part instead:
	// ChosenName leaves that out.
	Name     string
	IsAdmin  bool
	TimeZone string
	// Language is the code of the catalog the volunteer chose ("en",
	// "de"), or "" when they chose none: pages then follow the browser,
	// and mail, the notices feed and RPC messages are in English.
	Language  string
	CreatedAt time.Time
}

// ChosenName is the name the volunteer typed: Name, or "" when it is
// empty or their email's local part, which accounts made without a name
// were given before issue 45. Only a chosen name may be printed on
// anything public.
func (u User) ChosenName() string {
	if at := strings.IndexByte(u.Email, '@'); at >= 0 && u.Name == u.Email[:at] {
		return ""
	}
	return u.Name
}

// NewUser is what it takes to create an account.
type NewUser struct {
	Email    string
	Name     string
	Password string
	IsAdmin  bool
}

// Validate checks the fields a person typed and normalises white space.
func (u *NewUser) Validate() error {
	u.Email = strings.TrimSpace(u.Email)
	u.Name = strings.TrimSpace(u.Name)
	v := validation{}
	v.check(validEmail(u.Email), "email", locale.M("errors.field.email"))
	v.check(utf8.RuneCountInString(u.Name) <= 100, "name", locale.M("errors.field.name_too_long"))
	v.check(Printable(u.Name), "name", locale.M("form.not_printable"))
	checkPassword(v, u.Password)
	return v.err()
}

// TokenPurpose says what a mailed link does.
type TokenPurpose string

// The links Cobble mails.
const (
	TokenPasswordReset TokenPurpose = "password_reset"
	TokenEmailConfirm  TokenPurpose = "email_confirm"
	TokenEmailChange   TokenPurpose = "email_change"
	TokenUnsubscribe   TokenPurpose = "unsubscribe"
)

// validEmail is Cobble's one rule for an email address, a volunteer's or
// a project account's: one plain address (as net/mail reads it, without a
// name or angle brackets) whose domain has a dot, at most 254 bytes.
func validEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>,;\"") || !Printable(s) {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndexByte(s, '@'):], ".")
}

// SignupValid is how long a sign-up's link works.
const SignupValid = 24 * time.Hour

// How long each link works.
const (
	ResetValid       = time.Hour
	ConfirmValid     = 7 * 24 * time.Hour
	EmailChangeValid = 24 * time.Hour
	// UnsubscribeValid is long, so that an alert read late still turns
	// the alerts off; expired ones are cleaned up.
	UnsubscribeValid = 90 * 24 * time.Hour
)

// MailsPerHour is how many messages of one kind a volunteer (or anyone
// asking for them) can have sent to an account in an hour: the most recent
// link keeps working, so the owner is never locked out.
const MailsPerHour = 3

// MinPasswordLength is the shortest password a volunteer may choose.
const MinPasswordLength = 8
