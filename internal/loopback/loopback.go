// Package loopback keeps tests on the machine: a test binary that runs its
// tests through Main looks no name up through DNS. localhost and the names
// of /etc/hosts resolve as usual; a name under .invalid, which tests use
// for a host that cannot be reached, fails at once; any other name fails
// too, and is reported, and the test binary fails. Child processes that
// run the test binary (as cmd/cobble's tests run cobble) report their
// lookups to the parent through the file named by LogEnv.
package loopback

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// LogEnv names the file a child process appends the names it looked up to.
const LogEnv = "COBBLE_LOOPBACK_LOG"

var (
	mu     sync.Mutex
	looked []string // the names looked up, in order, without duplicates
)

// Main runs the tests through Run and exits with its code.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests with Guard on, and returns a failing code when a test
// (or a child process) looked a name up through DNS.
func Run(m *testing.M) int {
	Guard()
	log, err := os.CreateTemp("", "cobble-loopback-")
	if err == nil && os.Getenv(LogEnv) == "" {
		os.Setenv(LogEnv, log.Name())
		defer os.Remove(log.Name())
	}
	code := m.Run()
	names := Looked()
	if err == nil {
		b, _ := os.ReadFile(log.Name())
		for _, n := range strings.Fields(string(b)) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		log.Close()
		os.Remove(log.Name())
	}
	if len(names) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests looked up %s through DNS: tests stay on 127.0.0.1 and localhost "+
			"(a host that cannot be reached can be named under .invalid)\n", strings.Join(names, ", "))
		code = max(code, 1)
	}
	return code
}

// Guard makes every lookup of this process that would reach a DNS server
// fail with "no such host" instead, and records its name (Looked).
func Guard() {
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: dial}
}

// Looked returns the names this process looked up through DNS since Guard,
// but those under .invalid.
func Looked() []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(looked)
}

// dial is the resolver's way to its DNS server: an answerer in the
// process that says no such host.
func dial(context.Context, string, string) (net.Conn, error) {
	client, server := net.Pipe()
	go answer(server)
	return client, nil
}

// answer reads one query, as over TCP (the resolver writes a stream to a
// connection that is not a packet one), records its name and answers that
// the name does not exist.
func answer(c net.Conn) {
	defer c.Close()
	var size [2]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return
	}
	query := make([]byte, binary.BigEndian.Uint16(size[:]))
	if _, err := io.ReadFull(c, query); err != nil {
		return
	}
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return
	}
	q, err := p.Question()
	if err != nil {
		return
	}
	record(strings.TrimSuffix(q.Name.String(), "."))
	reply := dnsmessage.Message{Header: dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: dnsmessage.RCodeNameError},
		Questions: []dnsmessage.Question{q}}
	b, err := reply.Pack()
	if err != nil {
		return
	}
	c.Write(binary.BigEndian.AppendUint16(nil, uint16(len(b))))
	c.Write(b)
}

// record notes name, once, unless it is under .invalid; in a child process
// it appends it to the parent's file too.
func record(name string) {
	if name == "invalid" || strings.HasSuffix(name, ".invalid") {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(looked, name) {
		return
	}
	looked = append(looked, name)
	if path := os.Getenv(LogEnv); path != "" {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			fmt.Fprintln(f, name)
			f.Close()
		}
	}
}
