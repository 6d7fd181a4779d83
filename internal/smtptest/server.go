package smtptest

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Limits and timeouts of the SMTP server.
const (
	maxMessageBytes = 1 << 20
	maxRecipients   = 10
	ioTimeout       = 10 * time.Second
	// restartTimeout bounds how long Restart tries to bind the old port.
	restartTimeout = 5 * time.Second
)

// Server is a running SMTP server on 127.0.0.1. Its methods are safe for
// concurrent use.
type Server struct {
	addr string // "127.0.0.1:PORT", fixed for the server's life

	mu       sync.Mutex
	t        testing.TB // logs go-smtp's errors while running
	relay    *smtp.Server
	ln       *listener
	served   chan struct{}     // closed when relay.Serve returns
	conns    map[net.Conn]bool // open connections; true if held by Hang
	mode     Mode
	auth     *credentials
	messages []Message
	arrived  chan struct{} // closed and replaced at each new message
	accepted func(Message) // called before a message's 250 reply, if set
}

// credentials are the AUTH PLAIN user name and password RequireAuth set.
type credentials struct {
	user, pass string
}

// Start starts an SMTP server on a free port of 127.0.0.1, in Accept mode.
// It stops at the end of the test.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtptest: listen: %v", err)
	}
	s := &Server{
		addr:    ln.Addr().String(),
		conns:   make(map[net.Conn]bool),
		arrived: make(chan struct{}),
	}
	s.serve(t, ln)
	return s
}

// serve runs a go-smtp server on raw until Stop, which t.Cleanup calls.
func (s *Server) serve(t testing.TB, raw net.Listener) {
	relay := smtp.NewServer(smtp.BackendFunc(s.newSession))
	relay.Domain = "localhost"
	relay.MaxMessageBytes = maxMessageBytes
	relay.MaxRecipients = maxRecipients
	relay.ReadTimeout = ioTimeout
	relay.WriteTimeout = ioTimeout
	relay.AllowInsecureAuth = true
	relay.ErrorLog = errorLog{s}
	ln := &listener{Listener: raw, srv: s}
	served := make(chan struct{})

	s.mu.Lock()
	s.t, s.relay, s.ln, s.served = t, relay, ln, served
	s.mu.Unlock()

	go func() {
		defer close(served)
		if err := relay.Serve(ln); err != nil {
			s.logf("serve: %v", err)
		}
	}()
	t.Cleanup(s.Stop)
}

// Addr returns the server's address, "127.0.0.1:PORT".
func (s *Server) Addr() string {
	return s.addr
}

// URL returns the server's address as "smtp://127.0.0.1:PORT".
func (s *Server) URL() string {
	return "smtp://" + s.addr
}

// Stop closes the listener and every open connection, and waits until
// the server no longer accepts connections: a client dialing Addr now has
// its connection refused. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	relay, ln, served := s.relay, s.ln, s.served
	s.t, s.relay, s.ln, s.served = nil, nil, nil, nil
	if ln != nil {
		ln.stopped = true
	}
	conns := s.conns
	s.conns = make(map[net.Conn]bool)
	s.mu.Unlock()

	if relay == nil {
		return
	}
	// relay.Close closes the connections go-smtp serves, and ln too unless
	// relay.Serve has not started yet, hence the explicit ln.Close.
	_ = relay.Close()
	_ = ln.Close()
	for c := range conns {
		_ = c.Close()
	}
	<-served
}

// Restart stops the server if it is running and starts it again on the
// same port, trying for a few seconds if the port is briefly taken. The
// messages received so far are kept, and so are the mode and the
// credentials RequireAuth set. The server stops at the end of t as well.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	deadline := time.Now().Add(restartTimeout)
	for {
		ln, err := net.Listen("tcp", s.addr)
		if err == nil {
			s.serve(t, ln)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("smtptest: restart on %s: %v", s.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SetMode sets how the server answers from now on. Connections already
// hanging in Hang mode are closed when the mode changes to another one.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
	if m != Hang {
		s.closeHeldLocked()
	}
}

// RequireAuth makes MAIL FROM need a successful AUTH PLAIN with user and
// pass on the connection from now on; other credentials are refused with
// 535. Until it is called, AUTH PLAIN accepts any credentials and MAIL
// FROM needs none.
func (s *Server) RequireAuth(user, pass string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auth = &credentials{user: user, pass: pass}
}

// policy returns the mode and whether authentication is required.
func (s *Server) policy() (Mode, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode, s.auth != nil
}

// credentialsOK reports whether AUTH PLAIN may succeed with user and pass.
func (s *Server) credentialsOK(user, pass string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth == nil || *s.auth == credentials{user: user, pass: pass}
}

// OnAccept makes the server call f with each message it accepts, after
// keeping the message and before answering the client that it was
// accepted: a test can make something happen between a relay's taking a
// message and the sender's learning that it did. nil calls nothing.
func (s *Server) OnAccept(f func(Message)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accepted = f
}

// store keeps msg and wakes the waiters of WaitMessages, then calls the
// OnAccept function, if any.
func (s *Server) store(msg Message) {
	s.mu.Lock()
	s.messages = append(s.messages, msg)
	close(s.arrived)
	s.arrived = make(chan struct{})
	accepted := s.accepted
	s.mu.Unlock()
	if accepted != nil {
		accepted(msg.clone())
	}
}

// Messages returns copies of the messages accepted so far, in the order
// they arrived.
func (s *Server) Messages() []Message {
	msgs, _ := s.snapshot()
	return msgs
}

// snapshot returns copies of the messages accepted so far and a channel
// that is closed when the next one arrives.
func (s *Server) snapshot() ([]Message, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := make([]Message, len(s.messages))
	for i, m := range s.messages {
		msgs[i] = m.clone()
	}
	return msgs, s.arrived
}

// WaitMessages waits until at least n messages have arrived in all and
// returns copies of them all. If timeout passes first, it fails the test
// with a summary of the messages that did arrive.
func (s *Server) WaitMessages(t testing.TB, n int, timeout time.Duration) []Message {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		msgs, arrived := s.snapshot()
		if len(msgs) >= n {
			return msgs
		}
		select {
		case <-arrived:
		case <-timer.C:
			t.Fatalf("smtptest: waited %v for %d messages; %d arrived%s",
				timeout, n, len(msgs), summary(msgs))
			return nil
		}
	}
}

// summary describes msgs, one line each.
func summary(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "\n\t%d: from %q to %q, subject %q",
			i, m.From, m.To, m.Header.Get("Subject"))
	}
	return b.String()
}

// logf logs to the running server's test; it drops the line once the
// server has stopped, since the test may be over.
func (s *Server) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.t != nil {
		s.t.Logf("smtptest: "+format, args...)
	}
}

// errorLog passes go-smtp's error log to Server.logf.
type errorLog struct {
	s *Server
}

// Printf logs like fmt.Sprintf.
func (l errorLog) Printf(format string, args ...any) {
	l.s.logf(format, args...)
}

// Println logs like fmt.Sprintln.
func (l errorLog) Println(args ...any) {
	l.s.logf("%s", strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}
