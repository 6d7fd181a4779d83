// Package tcpcut forwards TCP connections on 127.0.0.1 to a server and lets
// a test break them the way a dying server or network does: Cut closes
// every open connection, as a killed server's kernel would (the client
// reads end of file mid-answer), and Refuse turns new connections away
// for as long as the test says.
//
// Tests put it between Cobble and PostgreSQL to see what Cobble answers
// while its database goes away, without stopping a server other tests
// share.
package tcpcut

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy is a running forwarder. Its methods are safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	conns   map[net.Conn]struct{} // both ends of every open connection
	refuse  bool
	stopped bool
	wg      sync.WaitGroup
}

// Start listens on a free port of 127.0.0.1 and forwards each connection
// to target ("host:port"). It stops when t ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("tcpcut: listen: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.stop)
	return p
}

// Addr returns the address clients dial instead of the target's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every open connection, both towards the client and towards
// the target. New connections are forwarded as before, unless Refuse.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// Refuse closes each new connection as soon as it is accepted while on
// is true, and forwards new connections again once it is false.
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	p.refuse = on
	p.mu.Unlock()
}

// Outage is Cut and Refuse(true) at once: the server seems gone until
// Refuse(false).
func (p *Proxy) Outage() {
	p.Refuse(true)
	p.Cut()
}

func (p *Proxy) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	_ = p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

// forward joins client to a new connection to the target until either
// end closes or Cut closes both.
func (p *Proxy) forward(client net.Conn) {
	defer p.wg.Done()
	if !p.admit(client) {
		_ = client.Close()
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil || !p.admit(server) {
		p.drop(client)
		if server != nil {
			_ = server.Close()
		}
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	p.drop(client)
	p.drop(server)
	<-done
}

// admit records c as open, unless new connections are refused now.
func (p *Proxy) admit(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refuse || p.stopped {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

// drop closes c and forgets it.
func (p *Proxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}
