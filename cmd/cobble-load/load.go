package main

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// worker sends the RPCs of its own share of the hosts, one at a time, so
// that no host ever has two RPCs in flight.
type worker struct {
	hosts []*host
	next  int // the host whose turn is next
	rng   *rand.Rand
	body  []byte
	reply bytes.Buffer
	stats stats
}

// newWorkers shares hosts among n workers (fewer if there are fewer hosts).
func newWorkers(hosts []*host, n int, seed uint64, expected int) []*worker {
	n = min(n, len(hosts))
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = &worker{rng: rand.New(rand.NewPCG(seed, uint64(i)+1)), stats: newStats(expected/n + 1)}
	}
	for i, h := range hosts {
		ws[i%n].hosts = append(ws[i%n].hosts, h)
	}
	return ws
}

// window is the timing of a timed phase that starts now: calls are counted
// from measureFrom, and none starts at or after stop.
type window struct {
	measureFrom, stop time.Time
}

func newWindow(warmup, duration time.Duration) window {
	start := time.Now()
	return window{measureFrom: start.Add(warmup), stop: start.Add(warmup + duration)}
}

// maxRPCsPerWorker bounds a worker's loop besides its time window.
const maxRPCsPerWorker = 1 << 30

// expectedRPCs sizes the latency buffers of a timed phase: the rate asked
// for, or a generous guess of what a 2-core machine does.
func expectedRPCs(cfg config) int {
	rate := cfg.rate
	if rate == 0 {
		rate = 5000
	}
	return min(int(rate*cfg.duration.Seconds())+1, maxPrealloc)
}

// maxPrealloc bounds the latencies preallocated for one phase; more still fit.
const maxPrealloc = 2_000_000

// runLoad sends RPCs from every worker for the warm-up and the measured
// duration, paced at cfg.rate if set, and returns the measured part.
// The costs of the measured part go to cost.
func runLoad(ctx context.Context, cfg config, client *rpcClient, pop *population, cost *costs) (stats, error) {
	b, err := newRequestBuilder(projectURLs(pop))
	if err != nil {
		return stats{}, err
	}
	ws := newWorkers(pop.hosts, cfg.concurrency, cfg.seed, expectedRPCs(cfg))
	pace := newPacer(cfg.rate)
	win := newWindow(cfg.warmup, cfg.duration)
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.load(ctx, client, b, pace, win) })
	}
	err = cost.startAt(ctx, win.measureFrom)
	wg.Wait()
	end := time.Now()
	return mergeStats(ws, end.Sub(win.measureFrom)), errors.Join(err, cost.stop())
}

// load is one worker's part of the load phase.
func (w *worker) load(ctx context.Context, c *rpcClient, b *requestBuilder, pace *pacer, win window) {
	for range maxRPCsPerWorker {
		if pace.wait(ctx, win.stop) != nil {
			return
		}
		began := time.Now()
		if !began.Before(win.stop) || ctx.Err() != nil {
			return
		}
		h := w.hosts[w.next]
		w.next = (w.next + 1) % len(w.hosts)
		h.grow(w.rng, began)
		w.body = b.build(w.body[:0], h)
		kind := c.send(ctx, w.body, &w.reply)
		took := time.Since(began)
		if kind == "" {
			h.ack()
		}
		if !began.Before(win.measureFrom) {
			w.stats.record(kind, took)
		}
	}
}

// maxTries bounds the attempts of a baseline or settling RPC that fails
// otherwise than with 503.
const maxTries = 3

// Cobble answers 503 when it cannot serve now (its database is failing
// over, say), and a BOINC client tries again later: a baseline or settling
// RPC answered so is sent again every retryPause, for up to retryFor.
const (
	retryPause = time.Second
	retryFor   = 2 * time.Minute
)

// sendSettling sends an RPC by send, which says how it failed ("" when
// it was accepted), as a client would: again after a pause while it is
// answered 503, up to retryFor, and up to maxTries times for other
// failures. It returns how the last try ended.
func sendSettling(ctx context.Context, send func() string) string {
	kind, tries, until := "canceled", 0, time.Now().Add(retryFor)
	for ctx.Err() == nil {
		if kind = send(); kind == "" {
			return ""
		}
		if strings.HasPrefix(kind, "HTTP 503") && time.Now().Before(until) {
			select {
			case <-ctx.Done():
			case <-time.After(retryPause):
			}
			continue
		}
		if tries++; tries >= maxTries {
			break
		}
	}
	return kind
}

// syncEach sends each host of the worker one RPC carrying its current
// counters, without growth: all hosts, or only those whose latest counters
// Cobble has not accepted. It returns how many hosts failed and the kind of
// the last failure.
func (w *worker) syncEach(ctx context.Context, c *rpcClient, b *requestBuilder, all bool) (int, string) {
	failed, last := 0, ""
	for _, h := range w.hosts {
		if !all && h.settled() {
			continue
		}
		kind := sendSettling(ctx, func() string {
			w.body = b.build(w.body[:0], h)
			return c.send(ctx, w.body, &w.reply)
		})
		if kind == "" {
			h.ack()
		} else {
			failed, last = failed+1, kind
		}
	}
	return failed, last
}

// syncAll runs syncEach on every worker at once.
func syncAll(ctx context.Context, cfg config, c *rpcClient, pop *population, all bool) (int, string, error) {
	b, err := newRequestBuilder(projectURLs(pop))
	if err != nil {
		return 0, "", err
	}
	ws := newWorkers(pop.hosts, cfg.concurrency, cfg.seed, 1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	failed, last := 0, ""
	for _, w := range ws {
		wg.Go(func() {
			n, kind := w.syncEach(ctx, c, b, all)
			mu.Lock()
			defer mu.Unlock()
			if failed += n; kind != "" {
				last = kind
			}
		})
	}
	wg.Wait()
	return failed, last, nil
}

func projectURLs(pop *population) [projectsPerHost]string {
	var urls [projectsPerHost]string
	for i, p := range pop.projects {
		urls[i] = p.URL
	}
	return urls
}
