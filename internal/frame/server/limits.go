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
// download that keeps moving is never cut.
const (
	DefaultBodyTimeout  = 60 * time.Second
	DefaultWriteTimeout = 60 * time.Second
	DefaultMaxConns     = 10_000
)

// progressBody extends the connection's read deadline before every read of
// the request body, so that only a body that stops arriving times out.
type progressBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	// expired is set once a read failed on its deadline.
	expired bool
}

// limitBody wraps the request's body in a progressBody when a limit
// applies, and is nil when none does.
func (c *chain) limitBody(rw http.ResponseWriter, r *http.Request) *progressBody {
	if c.opts.BodyTimeout <= 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	return &progressBody{ReadCloser: r.Body, rc: http.NewResponseController(rw), timeout: c.opts.BodyTimeout}
}

func (b *progressBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		b.expired = true
	}
	return n, err
}

// timedOut reports whether the body (nil: none was limited) was cut for
// making no progress.
func (b *progressBody) timedOut() bool { return b != nil && b.expired }

// bodyTimedOut is the answer to a request whose body was cut, when no
// response has started: Azure answers a write that takes longer than its
// timeout allows ("Setting timeouts for Blob service operations") with 500
// OperationTimedOut, which clients retry. Whatever the handler made of the
// failed read (the client gone, an unreadable body) is not the story. The
// connection is closed after it, the rest of the body unread.
func bodyTimedOut(w http.ResponseWriter) error {
	w.Header().Set("Connection", "close")
	return azerr.New(azerr.OperationTimedOut)
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
