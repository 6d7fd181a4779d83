package smtptest

import (
	"net"
)

// listener stands between the TCP listener and go-smtp. It hands accepted
// connections to go-smtp, except in Hang mode, where it keeps them open
// and silent in the server's connection set instead. Either way the
// server tracks every connection, so that Stop can close them all.
type listener struct {
	net.Listener
	srv     *Server
	stopped bool // guarded by srv.mu; set by Stop
}

// Accept returns the next connection go-smtp should serve.
func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := l.srv.admit(l, c); tc != nil {
			return tc, nil
		}
	}
}

// admit records c, the newest connection accepted on l. It returns the
// connection go-smtp is to serve, or nil if c is to hang, or was closed
// because l is stopped.
func (s *Server) admit(l *listener, c net.Conn) net.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case l.stopped:
		_ = c.Close()
		return nil
	case s.mode == Hang:
		s.conns[c] = true
		return nil
	}
	s.conns[c] = false
	return &trackedConn{Conn: c, srv: s}
}

// trackedConn is a connection served by go-smtp. Closing it removes it
// from the server's connection set.
type trackedConn struct {
	net.Conn
	srv *Server
}

// Close closes the connection and forgets it.
func (c *trackedConn) Close() error {
	c.srv.mu.Lock()
	delete(c.srv.conns, c.Conn)
	c.srv.mu.Unlock()
	return c.Conn.Close()
}

// closeHeldLocked closes and forgets the connections held in Hang mode.
// The caller holds s.mu.
func (s *Server) closeHeldLocked() {
	for c, held := range s.conns {
		if held {
			_ = c.Close()
			delete(s.conns, c)
		}
	}
}
