package server

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// What a shared server needs against clients that stall: a request body
// that makes no progress for BodyTimeout closes the connection, a response
// the client stops reading for WriteTimeout is abandoned, and each listener
// serves at most MaxConns connections at once (more wait in the kernel's
// accept queue). Progress, not duration, is what is timed: a slow upload or
// download that keeps moving is never cut, unless it moves slower than
// MinBodyRate (below).
const (
	DefaultBodyTimeout  = 60 * time.Second
	DefaultWriteTimeout = 60 * time.Second
	DefaultMaxConns     = 10_000
)

// A body that keeps moving, a byte every few seconds, would hold its
// connection, and one of the listener's MaxConns slots, for as long as the
// client likes. So a request body must also arrive at MinBodyRate bytes a
// second on average once BodyRateGrace has passed: the server waits for it
// BodyRateGrace, plus one second for every MinBodyRate bytes received, in
// all. This is Apache's mod_reqtimeout rule ("body=20,MinRate=500": each
// MinRate bytes received extend the body's deadline by a second).
//
// The defaults are no stricter than Azure: "Setting timeouts for Blob
// service operations" gives a write ten minutes a megabyte on average
// (about 1,700 bytes a second) and other requests 30 seconds, so a client
// that works against Azure never falls below 1,024 bytes a second after 30
// seconds. Holding every one of 10,000 slots then costs a client 10 MB/s
// of upload instead of next to nothing.
//
// Because the average runs from the start, a client that pauses (for less
// than BodyTimeout) after sending faster than the minimum keeps what it
// sent ahead and is not cut. Only time spent waiting for the client counts,
// not time the server spends between reads (writing what it read to disk),
// so a slow store never makes a client look slow.
const (
	DefaultMinBodyRate   = 1024 // bytes a second
	DefaultBodyRateGrace = 30 * time.Second
)

// progressBody sets the connection's read deadline before every read of the
// request body, so that a body times out when it stops arriving
// (BodyTimeout) or falls behind the minimum rate (bodyRate).
type progressBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	rate    *bodyRate
	// expired is set once a read failed on its deadline.
	expired bool
}

// limitBody wraps the request's body in a progressBody when a limit
// applies, and is nil when none does.
func (c *chain) limitBody(rw http.ResponseWriter, r *http.Request) *progressBody {
	if (c.opts.BodyTimeout <= 0 && c.opts.MinBodyRate <= 0) || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	return &progressBody{ReadCloser: r.Body, rc: http.NewResponseController(rw), timeout: c.opts.BodyTimeout,
		rate: newBodyRate(c.opts.MinBodyRate, c.opts.BodyRateGrace)}
}

func (b *progressBody) Read(p []byte) (int, error) {
	began := time.Now()
	if deadline, ok := b.deadline(began); ok {
		_ = b.rc.SetReadDeadline(deadline)
	}
	n, err := b.ReadCloser.Read(p)
	if b.rate != nil {
		b.rate.read(int64(n), time.Since(began))
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		b.expired = true
	}
	return n, err
}

// timedOut reports whether the body (nil: none was limited) was cut by one
// of its limits.
func (b *progressBody) timedOut() bool { return b != nil && b.expired }

// bodyTimedOut is the answer to a request whose body was cut, when no
// response has started: Azure answers a write that takes longer than its
// timeout allows (see above) with 500 OperationTimedOut, which clients
// retry. Whatever the handler made of the failed read (the client gone, an
// unreadable body) is not the story. The connection is closed after it,
// the rest of the body unread.
func bodyTimedOut(w http.ResponseWriter) error {
	w.Header().Set("Connection", "close")
	return azerr.New(azerr.OperationTimedOut)
}

// deadline is the earlier of the two limits that apply, and false when
// neither does.
func (b *progressBody) deadline(now time.Time) (time.Time, bool) {
	var d time.Time
	if b.timeout > 0 {
		d = now.Add(b.timeout)
	}
	if b.rate != nil {
		if r := now.Add(b.rate.allowance()); d.IsZero() || r.Before(d) {
			d = r
		}
	}
	return d, !d.IsZero()
}

// bodyRate keeps account of a body against its minimum rate: the grace,
// plus a second for every perSecond bytes received, less the time already
// spent waiting for them, is how long the next read may wait.
type bodyRate struct {
	perSecond int64 // > 0
	grace     time.Duration
	received  int64
	waited    time.Duration
}

// newBodyRate is nil when perSecond is 0: no minimum.
func newBodyRate(perSecond int64, grace time.Duration) *bodyRate {
	if perSecond <= 0 {
		return nil
	}
	return &bodyRate{perSecond: perSecond, grace: grace}
}

func (r *bodyRate) read(n int64, waited time.Duration) {
	r.received += n
	r.waited += waited
}

// allowance may be zero or less: the client has fallen behind, and the
// next read that has to wait for it fails at once.
func (r *bodyRate) allowance() time.Duration {
	whole, part := r.received/r.perSecond, r.received%r.perSecond
	earned := time.Duration(whole)*time.Second + time.Duration(part)*time.Second/time.Duration(r.perSecond)
	return r.grace + earned - r.waited
}

// extendWrite moves the connection's write deadline timeout ahead of now,
// before a write of the response.
func (s *statusWriter) extendWrite() {
	if s.writeTimeout > 0 {
		_ = http.NewResponseController(s.ResponseWriter).SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

// writeChunk is how much of a streamed response one write deadline covers.
const writeChunk = 4 << 20

// copyInChunks copies r to w a writeChunk at a time, extending the write
// deadline before each, keeping a file (or a bounded part of one) the kind
// of reader the connection can send with sendfile.
func (s *statusWriter) copyInChunks(w io.Writer, r io.Reader) (int64, error) {
	var total int64
	for {
		s.extendWrite()
		chunk, consumed := nextChunk(r, writeChunk)
		n, err := io.Copy(w, chunk)
		consumed(n)
		total += n
		if err != nil || n < writeChunk {
			return total, err
		}
	}
}

// nextChunk returns a reader of at most max bytes of r, of the same kind as
// r where that matters to sendfile (*os.File, *io.LimitedReader of one),
// and a function to report how much of it was copied.
func nextChunk(r io.Reader, max int64) (io.Reader, func(int64)) {
	switch x := r.(type) {
	case *io.LimitedReader:
		part := &io.LimitedReader{R: x.R, N: min(x.N, max)}
		return part, func(n int64) { x.N -= n }
	case *os.File:
		return &io.LimitedReader{R: x, N: max}, func(int64) {}
	}
	return io.LimitReader(r, max), func(int64) {}
}

// limitListener serves at most max connections at once: Accept waits for a
// slot, and closing a connection frees it.
type limitListener struct {
	net.Listener
	slots chan struct{}
}

// LimitConns wraps ln so that at most max of its connections are open at
// once (0: no bound); the HTTP listeners and the SMB endpoint both use it.
func LimitConns(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, max)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.slots <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
}

// slotConn gives its listener's slot back once, on the first Close.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
