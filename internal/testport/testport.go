// Package testport hands tests loopback TCP ports for programs they start
// that must be told their port before they bind it (nginx, `cobble serve`,
// an SMTP relay).
//
// A port the kernel chose for a listener a moment ago is a poor choice: the
// kernel hands the same range to every outgoing connection as its local
// port, so between the test closing its probe and the program binding the
// port, a connection to PostgreSQL may take it, and the program fails with
// "address in use". Free therefore picks from below the kernel's ephemeral
// range, where only programs that name a port bind, and never hands out the
// same port twice in one test process.
package testport

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lowest is the first port Free considers, above the well-known and the
// commonly configured ports.
const lowest = 20000

var (
	mu    sync.Mutex
	given = map[int]bool{}
)

// Free returns a port on 127.0.0.1 that nothing listens on now, chosen
// outside the kernel's ephemeral range and not returned before by this
// process.
func Free(t testing.TB) int {
	t.Helper()
	top := ephemeralStart()
	mu.Lock()
	defer mu.Unlock()
	for range 1000 {
		port := lowest + rand.IntN(top-lowest)
		if given[port] {
			continue
		}
		l, err := net.Listen("tcp", Addr(port))
		if err != nil {
			continue
		}
		l.Close()
		given[port] = true
		return port
	}
	t.Fatalf("testport: no free port in [%d, %d) after 1000 tries", lowest, top)
	return 0
}

// Addr is port's address on 127.0.0.1, as host:port.
func Addr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// FreeAddr is Addr(Free(t)).
func FreeAddr(t testing.TB) string {
	t.Helper()
	return Addr(Free(t))
}

// ephemeralStart is the first port of Linux's ephemeral range, or 32768,
// its default, where that cannot be read.
func ephemeralStart() int {
	const fallback = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return fallback
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return fallback
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n <= lowest+1000 {
		return fallback
	}
	return n
}
