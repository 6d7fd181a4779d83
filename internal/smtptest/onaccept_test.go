package smtptest

import (
	"net/smtp"
	"testing"
	"time"
)

// OnAccept's function sees each message after the server keeps it and
// before the client hears that it was accepted.
func TestOnAcceptRunsBeforeTheReply(t *testing.T) {
	t.Parallel()
	s := Start(t)
	kept := make(chan int, 1)
	s.OnAccept(func(m Message) {
		time.Sleep(300 * time.Millisecond) // the client must wait for this
		kept <- len(s.Messages())
	})
	start := time.Now()
	err := smtp.SendMail(s.Addr(), nil, "a@example.org", []string{"b@example.org"},
		[]byte("Subject: hi\r\n\r\nbody\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("the client heard the reply after %v, before OnAccept's function returned", took)
	}
	select {
	case n := <-kept:
		if n != 1 {
			t.Errorf("OnAccept ran with %d messages kept, want 1", n)
		}
	default:
		t.Error("OnAccept's function did not run")
	}
}
