package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cobble-am/cobble/boinc"
)

// probe is one RPC a prober sent, and how it ended: "" for an accepted
// reply, else the kind of failure ("HTTP 503", "error_num -1", ...).
type probe struct {
	at   time.Time
	kind string
}

// prober sends a join RPC of one volunteer to each instance, every 100 ms,
// and records the outcomes per instance.
type prober struct {
	body   string
	client *http.Client
	stop   chan struct{}
	wg     sync.WaitGroup

	mu     sync.Mutex
	probes map[string][]probe // base URL → probes, oldest first
}

// startProber starts probing bases with the join RPC of email and
// password; stop it with finish.
func startProber(t *testing.T, bases []string, email, password string) *prober {
	t.Helper()
	b, err := os.ReadFile("../../boinc/testdata/1-join.request.xml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "<name>harness-user</name>", "<name>"+email+"</name>", 1)
	s = strings.Replace(s, "1b0c5653828265b442b07e297a78bea8", boinc.PasswordHash(password, email), 1)
	p := &prober{body: s, client: &http.Client{Timeout: 15 * time.Second}, stop: make(chan struct{}),
		probes: map[string][]probe{}}
	for _, base := range bases {
		p.wg.Go(func() { p.loop(base) })
	}
	t.Cleanup(p.finish)
	return p
}

func (p *prober) loop(base string) {
	for {
		kind := p.send(base)
		p.mu.Lock()
		p.probes[base] = append(p.probes[base], probe{at: time.Now(), kind: kind})
		p.mu.Unlock()
		select {
		case <-p.stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// send posts the RPC to base and says how it ended.
func (p *prober) send(base string) string {
	resp, err := p.client.Post(base+"rpc.php", "application/x-www-form-urlencoded", strings.NewReader(p.body))
	if err != nil {
		return "transport: " + err.Error()
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return "reading the reply: " + err.Error()
	case resp.StatusCode != http.StatusOK:
		return fmt.Sprintf("HTTP %d", resp.StatusCode)
	case strings.Contains(string(reply), "<error_num>"):
		return "error reply: " + string(reply)
	}
	return ""
}

// finish stops the probes.
func (p *prober) finish() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	p.wg.Wait()
}

// answering reports whether every instance's latest probe, sent after
// killed, was accepted.
func (p *prober) answering(killed time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ps := range p.probes {
		if len(ps) == 0 || ps[len(ps)-1].kind != "" || ps[len(ps)-1].at.Before(killed) {
			return false
		}
	}
	return len(p.probes) > 0
}

// recovery reads the probes of each instance since the kill: when it
// answered for good (its first accepted RPC after the last failed one),
// how many RPCs failed, and how many were accepted before a failure (by
// the old primary, which its keeper may restart for a moment before it is
// demoted). It fails t for a failure other than 503, and for an instance
// that never answered after the kill.
func (p *prober) recovery(t *testing.T, killed time.Time) (last time.Time, failed, flaps int) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for base, ps := range p.probes {
		var back time.Time
		okBefore := false
		for _, pr := range ps {
			switch {
			case pr.at.Before(killed):
			case pr.kind == "":
				if back.IsZero() {
					back = pr.at
				}
				okBefore = true
			default:
				failed++
				if okBefore {
					flaps++
				}
				back, okBefore = time.Time{}, false
				if pr.kind != "HTTP 503" {
					t.Errorf("%s: an RPC failed %v after the kill with %q, want only 503 (retry later)",
						base, pr.at.Sub(killed).Round(time.Millisecond), pr.kind)
				}
			}
		}
		if back.IsZero() {
			t.Errorf("%s answered no RPC after the kill (its last probe failed)", base)
		}
		if back.After(last) {
			last = back
		}
	}
	return last, failed, flaps
}
