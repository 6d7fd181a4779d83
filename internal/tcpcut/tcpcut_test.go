package tcpcut

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// echo serves a line echo on loopback until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line on c and returns what comes back, or the error.
func roundTrip(c net.Conn) (string, error) {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

// The proxy forwards; Cut ends open connections with end of file; Refuse
// turns new ones away until it is lifted.
func TestCutAndRefuse(t *testing.T) {
	t.Parallel()
	p := Start(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := roundTrip(c); got != "ping\n" || err != nil {
		t.Fatalf("through the proxy: %q, %v", got, err)
	}
	p.Cut()
	if got, err := roundTrip(c); err == nil {
		t.Errorf("after Cut the connection still answers %q", got)
	}
	p.Refuse(true)
	r, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := roundTrip(r); err == nil {
		t.Errorf("while refusing, a new connection answers %q", got)
	}
	p.Refuse(false)
	a, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got, err := roundTrip(a); got != "ping\n" || err != nil {
		t.Errorf("after Refuse(false): %q, %v", got, err)
	}
}
