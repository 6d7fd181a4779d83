package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/every"
	"github.com/cobble-am/cobble/internal/smtptest"
)

// relay is a real SMTP server on loopback that the in-process Cobble of a
// mixed load sends its mail to, and that notes when each message arrives.
type relay struct {
	srv  *smtptest.Server
	stop func()

	mu      sync.Mutex
	arrived map[string][]time.Time // by recipient, in order
}

// relayHost adapts the tool to smtptest, which is made for tests: it
// passes the SMTP server's log lines to the tool's log, and runs the
// server's clean-up when the tool stops it.
type relayHost struct {
	testing.TB // nil: calling any method but these is a bug
	logw       io.Writer
	mu         sync.Mutex
	cleanups   []func()
}

// relayFailed is how relayHost's Fatalf stops startRelay.
type relayFailed struct{ msg string }

func (h *relayHost) Helper() {}
func (h *relayHost) Logf(format string, args ...any) {
	fmt.Fprintf(h.logw, "cobble-load: "+format+"\n", args...)
}
func (h *relayHost) Fatalf(format string, args ...any) {
	panic(relayFailed{fmt.Sprintf(format, args...)})
}
func (h *relayHost) Cleanup(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cleanups = append(h.cleanups, f)
}

// startRelay starts the SMTP server on a free port of 127.0.0.1.
func startRelay(logw io.Writer) (r *relay, err error) {
	host := &relayHost{logw: logw}
	defer func() {
		if f, ok := recover().(relayFailed); ok {
			r, err = nil, fmt.Errorf("SMTP server: %s", f.msg)
		}
	}()
	r = &relay{srv: smtptest.Start(host), arrived: map[string][]time.Time{}}
	r.srv.OnAccept(func(m smtptest.Message) {
		at := time.Now()
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, to := range m.To {
			r.arrived[strings.ToLower(to)] = append(r.arrived[strings.ToLower(to)], at)
		}
	})
	r.stop = func() {
		host.mu.Lock()
		defer host.mu.Unlock()
		for i := len(host.cleanups) - 1; i >= 0; i-- {
			host.cleanups[i]()
		}
		host.cleanups = nil
	}
	return r, nil
}

// arrivals returns when the messages to each recipient arrived.
func (r *relay) arrivals() map[string][]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]time.Time, len(r.arrived))
	for k, v := range r.arrived {
		out[k] = append([]time.Time(nil), v...)
	}
	return out
}

// resetter asks for a password reset once a second, through the form, for
// the history's volunteers in turn, each request from an address of its
// own behind the trusted loopback proxy, so that the per-address limit of
// mail requests does not refuse them. (A reset asked for ends no session:
// the visitors' volunteer may be asked for too.) A volunteer asked for
// more than accounting.MailsPerHour times in an hour gets no message, and
// the report counts it missing.
type resetter struct {
	base   string
	emails []string
	client *http.Client

	mu       sync.Mutex
	requests []resetRequest
	refused  map[string]int // failed requests, by status or error
}

// resetRequest is one reset asked for.
type resetRequest struct {
	email string
	at    time.Time // when the request was sent
}

// resetEvery is how often the mixed load asks for a password reset.
const resetEvery = time.Second

// newResetter returns a resetter for the volunteers of the history run,
// starting at one that depends on the time, so that runs within an hour
// of each other on a kept history ask for different volunteers.
func newResetter(base string, hs *history) *resetter {
	r := &resetter{base: base, client: &http.Client{Timeout: time.Minute}, refused: map[string]int{}}
	// One volunteer a second from the second the run starts: two runs
	// started more than a phase apart ask for different volunteers within
	// the hour, in which Cobble sends an account at most
	// accounting.MailsPerHour resets (a run a few minutes after another,
	// starting at the minute, asked again for most of the same
	// volunteers, and their fourth reset in the hour brought no mail).
	n := hs.volunteers
	start := int(time.Now().Unix()) % n
	for i := range n {
		r.emails = append(r.emails, fmt.Sprintf("history-%s-%d@example.org", hs.run, 1+(start+i)%n))
	}
	return r
}

// run asks for a reset every resetEvery until stop; the requests under
// way at stop run to their end (or ctx's).
func (r *resetter) run(ctx context.Context, stop time.Time) {
	until, cancel := context.WithDeadline(ctx, stop)
	defer cancel()
	var wg sync.WaitGroup
	i := 0
	every.Loop(until, resetEvery, true, func(context.Context, time.Time) {
		n, email := i, r.emails[i%len(r.emails)]
		wg.Go(func() { r.request(ctx, n, email) })
		i++
	})
	wg.Wait()
}

// request posts the forgotten-password form for email, as the i-th client.
func (r *resetter) request(ctx context.Context, i int, email string) {
	form := url.Values{"email": {email}}
	req, err := http.NewRequestWithContext(ctx, "POST", r.base+"password/forgot", strings.NewReader(form.Encode()))
	if err != nil {
		r.refuse(err.Error())
		return
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	at := time.Now()
	resp, err := r.client.Do(req)
	if err != nil {
		r.refuse(err.Error())
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.refuse(fmt.Sprintf("HTTP %d", resp.StatusCode))
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, resetRequest{email: email, at: at})
}

func (r *resetter) refuse(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refused[kind]++
}

// resetWait bounds the wait, after the load, for the resets' messages.
const resetWait = time.Minute

// latencies waits until a message has arrived for every accepted request,
// or resetWait has passed, and returns each request's time to its message
// (the k-th request for an address is matched with the k-th message to
// it) and the number of requests whose message never came.
func (r *resetter) latencies(ctx context.Context, rl *relay) ([]time.Duration, int) {
	r.mu.Lock()
	reqs := append([]resetRequest(nil), r.requests...)
	r.mu.Unlock()
	until := time.Now().Add(resetWait)
	for {
		got := rl.arrivals()
		var lat []time.Duration
		seen := map[string]int{}
		for _, q := range reqs {
			k := seen[q.email]
			seen[q.email]++
			if at := got[q.email]; k < len(at) {
				lat = append(lat, at[k].Sub(q.at))
			}
		}
		if len(lat) == len(reqs) || time.Now().After(until) || sleep(ctx, 200*time.Millisecond) != nil {
			return lat, len(reqs) - len(lat)
		}
	}
}
