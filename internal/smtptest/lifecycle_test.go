package smtptest_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/smtptest"
)

// readGreeting dials addr and reads the first line the server sends,
// giving up after 500 ms.
func readGreeting(addr string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(500 * time.Millisecond)); err != nil {
		return "", err
	}
	return textproto.NewReader(bufio.NewReader(conn)).ReadLine()
}

func TestHang(t *testing.T) {
	srv := smtptest.Start(t)
	srv.SetMode(smtptest.Hang)
	if _, err := readGreeting(srv.Addr()); !isTimeout(err) {
		t.Fatalf("reading the greeting: %v, want a timeout", err)
	}

	srv.SetMode(smtptest.Accept)
	line, err := readGreeting(srv.Addr())
	if err != nil || !strings.HasPrefix(line, "220 ") {
		t.Fatalf("greeting after Hang: %q, %v", line, err)
	}
}

func TestHangEndsAtModeChangeAndStop(t *testing.T) {
	srv := smtptest.Start(t)
	srv.SetMode(smtptest.Hang)
	hanging := func() net.Conn {
		t.Helper()
		conn, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		// Silence for a while gives the server time to accept the
		// connection into Hang.
		_ = conn.SetDeadline(time.Now().Add(200 * time.Millisecond))
		if n, err := conn.Read(make([]byte, 1)); !isTimeout(err) {
			t.Fatalf("read on a hanging connection: %d bytes, %v; want a timeout", n, err)
		}
		return conn
	}
	waitClosed := func(conn net.Conn, when string) {
		t.Helper()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if n, err := conn.Read(make([]byte, 1)); err == nil || isTimeout(err) {
			t.Errorf("%s: read %d bytes, %v; want the connection closed", when, n, err)
		}
	}

	conn := hanging()
	srv.SetMode(smtptest.TempFail)
	waitClosed(conn, "after SetMode")

	srv.SetMode(smtptest.Hang)
	conn = hanging()
	srv.Stop()
	waitClosed(conn, "after Stop")
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

func TestStopLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	srv := smtptest.Start(t)
	if err := send(srv.Addr(), nil, confirmation); err != nil {
		t.Fatalf("send: %v", err)
	}
	if line, err := readGreeting(srv.Addr()); err != nil {
		t.Fatalf("greeting: %q, %v", line, err)
	}
	idle, err := net.Dial("tcp", srv.Addr()) // served, waiting for a command
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	srv.SetMode(smtptest.Hang)
	hung, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	srv.Stop()

	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Stop, %d before Start", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStopRefusesConnections(t *testing.T) {
	srv := smtptest.Start(t)
	srv.Stop()
	conn, err := net.DialTimeout("tcp", srv.Addr(), time.Second)
	if err == nil {
		conn.Close()
		t.Fatal("dial after Stop succeeded")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after Stop: %v, want connection refused", err)
	}
	srv.Stop() // a second Stop does nothing
}

func TestRestartKeepsPortAndMessages(t *testing.T) {
	srv := smtptest.Start(t)
	addr, url := srv.Addr(), srv.URL()
	if url != "smtp://"+addr || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("Addr() = %q, URL() = %q", addr, url)
	}
	for i := range 2 {
		msg := fmt.Sprintf("Subject: message %d\r\n\r\nbody\r\n", i)
		if err := send(srv.Addr(), nil, msg); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		srv.Stop()
		srv.Restart(t)
		if srv.Addr() != addr {
			t.Fatalf("address after Restart %q, want %q", srv.Addr(), addr)
		}
	}
	msgs := srv.Messages()
	if len(msgs) != 2 {
		t.Fatalf("got %d messages, want 2", len(msgs))
	}
	for i, m := range msgs {
		if want := fmt.Sprintf("message %d", i); m.Header.Get("Subject") != want {
			t.Errorf("message %d: Subject %q, want %q", i, m.Header.Get("Subject"), want)
		}
	}
}

func TestWaitMessagesWaits(t *testing.T) {
	srv := smtptest.Start(t)
	errc := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		errc <- send(srv.Addr(), nil, confirmation)
	}()
	if msgs := srv.WaitMessages(t, 1, 5*time.Second); len(msgs) != 1 {
		t.Errorf("got %d messages, want 1", len(msgs))
	}
	if err := <-errc; err != nil {
		t.Fatalf("send: %v", err)
	}
}

// fatalRecorder records Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}

func TestWaitMessagesTimeout(t *testing.T) {
	srv := smtptest.Start(t)
	if err := send(srv.Addr(), nil, confirmation); err != nil {
		t.Fatalf("send: %v", err)
	}
	rec := &fatalRecorder{TB: t}
	if msgs := srv.WaitMessages(rec, 2, 100*time.Millisecond); msgs != nil {
		t.Errorf("WaitMessages returned %d messages after timing out", len(msgs))
	}
	if !strings.Contains(rec.fatal, "1 arrived") || !strings.Contains(rec.fatal, "Confirm your address") {
		t.Errorf("Fatalf message %q does not describe what arrived", rec.fatal)
	}
}
