package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// visitors are the page visitors of a mixed load: each requests the
// history's pages in turn (each visitor starting at a page of its own),
// pausing think between one page and the next.
type visitors struct {
	n     int
	think time.Duration
	v     *visit
	pages []page

	mu     sync.Mutex
	times  []pageTimes    // by page, the measured requests
	failed map[string]int // by page and failure
}

func newVisitors(n int, think time.Duration, v *visit, pages []page) *visitors {
	return &visitors{n: n, think: think, v: v, pages: pages, times: make([]pageTimes, len(pages)),
		failed: map[string]int{}}
}

// run sends the visitors' requests until stop, counting those that start
// in win (from measureFrom).
func (vs *visitors) run(ctx context.Context, win window) {
	var wg sync.WaitGroup
	for i := range vs.n {
		wg.Go(func() { vs.visitor(ctx, i, win) })
	}
	wg.Wait()
}

// visitor is the i-th visitor's requests.
func (vs *visitors) visitor(ctx context.Context, i int, win window) {
	// Spread the visitors' first requests over one pause.
	if sleep(ctx, vs.think*time.Duration(i)/time.Duration(vs.n)) != nil {
		return
	}
	for k := i; ; k++ {
		began := time.Now()
		if !began.Before(win.stop) || ctx.Err() != nil {
			return
		}
		at := k % len(vs.pages)
		p := vs.pages[at]
		first, total, size, err := vs.v.get(ctx, p)
		if !began.Before(win.measureFrom) {
			vs.record(at, p, began, first, total, size, err)
		}
		if sleep(ctx, vs.think) != nil {
			return
		}
	}
}

func (vs *visitors) record(at int, p page, began time.Time, first, total time.Duration, size int64, err error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if err != nil {
		vs.failed[fmt.Sprintf("%s: %v", p.name, err)]++
		return
	}
	t := &vs.times[at]
	t.first, t.total, t.bytes = append(t.first, first), append(t.total, total), size
	t.began = append(t.began, began)
}

// judged returns the times a page is judged by: to the end of the body,
// or for a download to its first byte.
func (t pageTimes) judged(p page) []time.Duration {
	if p.download {
		return t.first
	}
	return t.total
}

// between returns the judged times of the requests that began from one
// moment until another.
func (t pageTimes) between(p page, from, until time.Time) []time.Duration {
	var ds []time.Duration
	for i, d := range t.judged(p) {
		if !t.began[i].Before(from) && t.began[i].Before(until) {
			ds = append(ds, d)
		}
	}
	return ds
}
