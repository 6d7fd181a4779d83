package boinc

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// NewGzipHostScanner returns a scanner that reads a gzip-compressed host
// export (host.gz, host_0.gz, ...) from r.
//
// It reads the gzip header at once and fails, wrapping [ErrBadExport]
// and the gzip error, if r does not start with one. A stream that is cut
// short or damaged later makes [HostScanner.Err] report the gzip error,
// such as [io.ErrUnexpectedEOF], after the records before the damage.
//
// Decompressing costs more than scanning, so the scanner decompresses in
// a goroutine of its own, up to 768 KiB ahead of the scan: the two use
// two cores. [HostScanner.Close] stops that goroutine; so does the garbage
// collector once the scanner is unreachable. The goroutine may still be
// in a call to r.Read when Close returns; closing r ends that call.
func NewGzipHostScanner(r io.Reader) (*HostScanner, error) {
	return NewGzipHostScannerContext(context.Background(), r, 0)
}

// NewGzipHostScannerContext is [NewGzipHostScanner] for a scan that ends
// when ctx does, and fails once the decompressed stream exceeds maxBytes
// (0: no limit): [HostScanner.Err] then reports ctx's cause or the limit.
// Both are checked as the stream is decompressed, every few hundred KiB at
// most, so a stream without a single host record in it stops too.
func NewGzipHostScannerContext(ctx context.Context, r io.Reader, maxBytes int64) (*HostScanner, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: not a gzip stream: %w", ErrBadExport, err)
	}
	ra := newReadAhead(&guardedReader{r: zr, ctx: ctx, left: maxBytes, max: maxBytes}, 3, exportBufSize)
	s := NewHostScanner(ra)
	s.ahead = ra
	runtime.AddCleanup(s, (*readAhead).stop, ra)
	return s, nil
}

// Close stops the decompressing goroutine of a scanner made by
// [NewGzipHostScanner] and releases its buffers; it does nothing for
// other scanners. Next returns false after Close. Close always returns
// nil; it does not close the reader the scanner reads from.
func (s *HostScanner) Close() error {
	if s.ahead != nil {
		s.ahead.stop()
	}
	if s.err == nil && s.state != stDone {
		s.err = errScannerClosed
	}
	return nil
}

// errScannerClosed is what Err reports after Close ends a scan early.
var errScannerClosed = errors.New("boinc: host scanner closed")

// guardedReader fails once its context ends or, when max > 0, once more
// than max bytes were read.
type guardedReader struct {
	r         io.Reader
	ctx       context.Context
	left, max int64
}

func (g *guardedReader) Read(p []byte) (int, error) {
	if g.ctx.Err() != nil {
		return 0, context.Cause(g.ctx)
	}
	n, err := g.r.Read(p)
	if g.max > 0 {
		if g.left -= int64(n); g.left < 0 {
			return n, fmt.Errorf("the export holds more than %d bytes once decompressed", g.max)
		}
	}
	return n, err
}

// readAhead is an io.Reader that reads another reader in a goroutine,
// into a fixed set of buffers, ahead of its own caller.
type readAhead struct {
	full chan aheadChunk // buffers the goroutine has filled
	free chan []byte     // buffers the goroutine may fill
	done chan struct{}   // closed to stop the goroutine
	once sync.Once
	buf  []byte // the buffer being consumed
	cur  []byte // its unread part
	err  error  // the error that came with it
}

// aheadChunk is a filled buffer, with the error that ended the reading.
type aheadChunk struct {
	buf []byte
	err error
}

// newReadAhead starts reading r into n buffers of the given size.
func newReadAhead(r io.Reader, n, size int) *readAhead {
	ra := &readAhead{
		full: make(chan aheadChunk, n),
		free: make(chan []byte, n),
		done: make(chan struct{}),
	}
	for range n {
		ra.free <- make([]byte, size)
	}
	go readAheadLoop(r, ra.full, ra.free, ra.done)
	return ra
}

// readAheadLoop fills the free buffers from r and hands them over until
// r fails or done is closed. It must not refer to the readAhead, so that
// the garbage collector can run the cleanup that stops it.
func readAheadLoop(r io.Reader, full chan<- aheadChunk, free <-chan []byte, done <-chan struct{}) {
	for {
		var buf []byte
		select {
		case buf = <-free:
		case <-done:
			return
		}
		n, err := readFull(r, buf)
		select {
		case full <- aheadChunk{buf[:n], err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

// readFull reads from r until buf is full or r fails, and returns the
// number of bytes read and the error, io.EOF included.
func readFull(r io.Reader, buf []byte) (int, error) {
	n := 0
	for empty := 0; n < len(buf); {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m == 0 {
			if empty++; empty >= 100 {
				return n, io.ErrNoProgress
			}
		}
	}
	return n, nil
}

// Read copies data the goroutine has read, waiting for it if needed.
func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.buf != nil {
			ra.free <- ra.buf[:cap(ra.buf)]
			ra.buf = nil
		}
		select {
		case c := <-ra.full:
			ra.buf, ra.cur, ra.err = c.buf, c.buf, c.err
		case <-ra.done:
			return 0, errScannerClosed
		}
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// stop ends the goroutine. It may be called more than once.
func (ra *readAhead) stop() {
	ra.once.Do(func() { close(ra.done) })
}
