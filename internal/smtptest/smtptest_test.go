package smtptest_test

import (
	"errors"
	"net"
	"net/smtp"
	"net/textproto"
	"slices"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/smtptest"
)

const (
	sender    = "noreply@cobble.example"
	recipient = "volunteer@example.org"
)

// confirmation is a multipart/alternative message like the ones Cobble
// sends: quoted-printable text (with a soft line break inside the link and
// an encoded "=") and a base64 HTML part.
const confirmation = "From: Cobble <noreply@cobble.example>\r\n" +
	"To: volunteer@example.org\r\n" +
	"Subject: Confirm your address\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/alternative; boundary=\"b1\"\r\n" +
	"\r\n" +
	"--b1\r\n" +
	"Content-Type: text/plain; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Hello L=C3=A9a,\r\n" +
	"confirm at https://cobble.example/confirm?token=3Dabc123def456ghi789jkl=\r\n" +
	"mno.\r\n" +
	"Help: http://cobble.example/help (any time)\r\n" +
	"--b1\r\n" +
	"Content-Type: text/html; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"PHA+SGVsbG8gTMOpYSw8L3A+\r\n" +
	"--b1--\r\n"

// send delivers msg with net/smtp, authenticating if auth is not nil.
func send(addr string, auth smtp.Auth, msg string) error {
	return smtp.SendMail(addr, auth, sender, []string{recipient}, []byte(msg))
}

// replyCode returns the SMTP reply code err carries, or 0.
func replyCode(err error) int {
	var protoErr *textproto.Error
	if errors.As(err, &protoErr) {
		return protoErr.Code
	}
	return 0
}

func TestAcceptDecodesMessage(t *testing.T) {
	srv := smtptest.Start(t)
	if err := send(srv.Addr(), nil, confirmation); err != nil {
		t.Fatalf("send: %v", err)
	}
	msgs := srv.WaitMessages(t, 1, 5*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("got %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.From != sender || !slices.Equal(m.To, []string{recipient}) {
		t.Errorf("envelope: from %q to %q", m.From, m.To)
	}
	if got := m.Header.Get("Subject"); got != "Confirm your address" {
		t.Errorf("Subject = %q", got)
	}
	if string(m.Data) != confirmation {
		t.Errorf("Data = %q, want %q", m.Data, confirmation)
	}
	wantText := "Hello Léa,\n" +
		"confirm at https://cobble.example/confirm?token=abc123def456ghi789jklmno.\n" +
		"Help: http://cobble.example/help (any time)"
	if m.Text != wantText {
		t.Errorf("Text = %q, want %q", m.Text, wantText)
	}
	if want := "<p>Hello Léa,</p>"; m.HTML != want {
		t.Errorf("HTML = %q, want %q", m.HTML, want)
	}
	wantLinks := []string{
		"https://cobble.example/confirm?token=abc123def456ghi789jklmno",
		"http://cobble.example/help",
	}
	if got := m.Links(); !slices.Equal(got, wantLinks) {
		t.Errorf("Links() = %q, want %q", got, wantLinks)
	}
}

func TestSinglePartText(t *testing.T) {
	srv := smtptest.Start(t)
	msg := "Subject: Reset\r\n\r\nReset: <https://cobble.example/reset/x1>\r\n"
	if err := send(srv.Addr(), nil, msg); err != nil {
		t.Fatalf("send: %v", err)
	}
	m := srv.WaitMessages(t, 1, 5*time.Second)[0]
	if want := "Reset: <https://cobble.example/reset/x1>\n"; m.Text != want || m.HTML != "" {
		t.Errorf("Text = %q, HTML = %q; want Text %q and no HTML", m.Text, m.HTML, want)
	}
	if got := m.Links(); !slices.Equal(got, []string{"https://cobble.example/reset/x1"}) {
		t.Errorf("Links() = %q", got)
	}
}

func TestMessagesAreCopies(t *testing.T) {
	srv := smtptest.Start(t)
	if err := send(srv.Addr(), nil, confirmation); err != nil {
		t.Fatalf("send: %v", err)
	}
	m := srv.Messages()[0]
	m.To[0] = "changed"
	m.Data[0] = 'X'
	m.Header["Subject"][0] = "changed"
	again := srv.Messages()[0]
	if again.To[0] != recipient || again.Data[0] != 'F' || again.Header.Get("Subject") == "changed" {
		t.Errorf("changing a returned message changed the stored one")
	}
}

func TestTempFail(t *testing.T) {
	srv := smtptest.Start(t)
	srv.SetMode(smtptest.TempFail)
	err := send(srv.Addr(), nil, confirmation)
	if code := replyCode(err); code != 451 {
		t.Fatalf("send: %v (code %d), want a 451 reply", err, code)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d messages stored, want 0", n)
	}
}

func TestPermFail(t *testing.T) {
	srv := smtptest.Start(t)
	srv.SetMode(smtptest.PermFail)
	err := send(srv.Addr(), nil, confirmation)
	if code := replyCode(err); code != 550 {
		t.Fatalf("send: %v (code %d), want a 550 reply", err, code)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d messages stored, want 0", n)
	}
}

func TestDrop(t *testing.T) {
	srv := smtptest.Start(t)
	srv.SetMode(smtptest.Drop)
	err := send(srv.Addr(), nil, confirmation)
	if err == nil {
		t.Fatal("send succeeded, want the connection dropped")
	}
	if code := replyCode(err); code != 0 {
		t.Errorf("send: %v, want a closed connection rather than a reply", err)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d messages stored, want 0", n)
	}
}

func TestRequireAuth(t *testing.T) {
	srv := smtptest.Start(t)
	host, _, _ := net.SplitHostPort(srv.Addr())
	srv.RequireAuth("cobble", "s3cret")

	if err := send(srv.Addr(), nil, confirmation); replyCode(err) != 530 {
		t.Errorf("send without AUTH: %v, want a 530 reply", err)
	}
	wrong := smtp.PlainAuth("", "cobble", "wrong", host)
	if err := send(srv.Addr(), wrong, confirmation); replyCode(err) != 535 {
		t.Errorf("send with a wrong password: %v, want a 535 reply", err)
	}
	right := smtp.PlainAuth("", "cobble", "s3cret", host)
	if err := send(srv.Addr(), right, confirmation); err != nil {
		t.Fatalf("send with AUTH PLAIN: %v", err)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("%d messages stored, want 1", n)
	}
}

func TestAuthOptionalByDefault(t *testing.T) {
	srv := smtptest.Start(t)
	host, _, _ := net.SplitHostPort(srv.Addr())
	auth := smtp.PlainAuth("", "anyone", "anything", host)
	if err := send(srv.Addr(), auth, confirmation); err != nil {
		t.Fatalf("send with AUTH PLAIN: %v", err)
	}
}
