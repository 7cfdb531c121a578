package server

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// A TLS port also answers clients that speak plain HTTP to it, the way
// Azure answers an http:// request to an account that requires secure
// transfer: 400 AccountRequiresHttps in the service's error format. Go's
// own answer to such a client is a bare "Client sent an HTTP request to an
// HTTPS server", which no SDK reads as an Azure error. So each accepted
// connection's first byte decides: a TLS handshake record goes to the
// listener's HTTPS server, anything else to a second server with the same
// handler, whose middleware refuses requests that did not come over TLS
// (Options.RequireTLS).

// tlsHandshakeRecord is the first byte of every TLS client: the record
// type of its ClientHello.
const tlsHandshakeRecord = 0x16

// splitListener accepts raw connections and hands each to secure (wrapped
// in TLS) or plain, once its first byte has arrived. The peek runs in the
// connection's own goroutine, so a client that sends nothing delays
// nobody; firstByteTimeout bounds how long it may keep its slot.
type splitListener struct {
	raw              net.Listener
	tls              *tls.Config
	firstByteTimeout time.Duration
	secure, plain    *connQueue
	closeRaw         sync.Once
}

func newSplitListener(raw net.Listener, cfg *tls.Config, firstByteTimeout time.Duration) *splitListener {
	s := &splitListener{raw: raw, tls: cfg, firstByteTimeout: firstByteTimeout}
	s.secure, s.plain = newConnQueue(s), newConnQueue(s)
	go s.run()
	return s
}

func (s *splitListener) run() {
	var delay time.Duration
	for {
		c, err := s.raw.Accept()
		if err != nil && !errors.Is(err, net.ErrClosed) {
			// Out of file descriptors and the like: wait and go on, as
			// net/http's own accept loop does.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		if err != nil {
			s.secure.fail(err)
			s.plain.fail(err)
			return
		}
		delay = 0
		go s.sort(c)
	}
}

// sort reads the connection's first byte and queues it where it belongs.
func (s *splitListener) sort(c net.Conn) {
	first := make([]byte, 1)
	_ = c.SetReadDeadline(time.Now().Add(s.firstByteTimeout))
	if _, err := io.ReadFull(c, first); err != nil {
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	conn := &prefixConn{Conn: c, prefix: first}
	if first[0] == tlsHandshakeRecord {
		s.secure.put(tls.Server(conn, s.tls))
		return
	}
	s.plain.put(conn)
}

func (s *splitListener) close() error {
	var err error
	s.closeRaw.Do(func() { err = s.raw.Close() })
	return err
}

// connQueue is a net.Listener whose connections another goroutine
// accepted; closing either queue closes the raw listener for both.
type connQueue struct {
	owner *splitListener
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	err   error
}

func newConnQueue(owner *splitListener) *connQueue {
	return &connQueue{owner: owner, conns: make(chan net.Conn), done: make(chan struct{})}
}

func (q *connQueue) put(c net.Conn) {
	select {
	case q.conns <- c:
	case <-q.done:
		c.Close()
	}
}

// fail ends the queue with the raw listener's error.
func (q *connQueue) fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.mu.Unlock()
	q.once.Do(func() { close(q.done) })
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.done:
		q.mu.Lock()
		defer q.mu.Unlock()
		return nil, q.err
	}
}

func (q *connQueue) Close() error {
	q.fail(net.ErrClosed)
	return q.owner.close()
}

func (q *connQueue) Addr() net.Addr { return q.owner.raw.Addr() }

// prefixConn gives back the bytes already read before reading on.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}
