package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
)

// A request whose headers pass net/http's MaxHeaderBytes (1 MB) is refused
// by Go with "431 Request Header Fields Too Large". Azure's front end
// (HTTP.sys) refuses the same request with 400 Bad Request and a short HTML
// page, no x-ms-error-code, and that is what SDKs and their tests expect.
// The limit stays: raising it would let any client make the server hold
// megabytes per connection. Only the answer changes.
//
// Go writes its 431 straight to the connection, outside any handler (the
// errTooLarge case of the read loop in net/http's server.go), so no
// middleware can change it. Every connection handed to http.Server is
// therefore wrapped in a headerLimitConn, which swaps that write for
// Azure's answer. To be sure a write is Go's error and not response data,
// the connection tracks whether it is serving a request: from the moment
// the outermost handler starts until net/http reports the connection idle
// again (the response's last bytes are flushed after the handler returns).
// Between requests net/http writes only its own errors, each in one Write.

// goTooLarge begins Go's answer to headers over the limit.
const goTooLarge = "HTTP/1.1 431 "

// headersTooLong is the answer written instead, modelled on HTTP.sys's.
var headersTooLong = func() []byte {
	const body = "<!DOCTYPE html>\r\n" +
		"<html><head><title>Bad Request</title></head>\r\n" +
		"<body><h2>Bad Request: request too long</h2>\r\n" +
		"<p>HTTP error 400: the request's headers are longer than the server accepts.</p>\r\n" +
		"</body></html>\r\n"
	return []byte("HTTP/1.1 400 Bad Request\r\n" +
		"Content-Type: text/html; charset=us-ascii\r\n" +
		"Connection: close\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n" +
		"\r\n" + body)
}()

// headerLimitListener wraps each accepted connection in a headerLimitConn.
type headerLimitListener struct{ net.Listener }

func (l headerLimitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	hc := &headerLimitConn{Conn: c}
	hc.tls, _ = c.(*tls.Conn)
	if _, ok := c.(io.ReaderFrom); ok {
		// Keep the zero-copy path (sendfile) where the connection has one.
		return &headerLimitReaderFrom{hc}, nil
	}
	return hc, nil
}

// headerLimitConn rewrites Go's 431 into Azure's 400 (see above).
//
// Wrapping a *tls.Conn hides it from net/http, which then neither fills in
// Request.TLS nor runs the handshake up front: the handshake happens on
// the first Read, under the ReadHeaderTimeout deadline net/http sets
// before reading a request, and trackRequests restores Request.TLS from
// tls. Nor could net/http switch to HTTP/2 by ALPN, which the server's
// TLS config does not offer (run/app). The wrapper has to sit above TLS to
// see Go's answer as plain text.
type headerLimitConn struct {
	net.Conn
	// tls is the connection's TLS layer (Conn itself), nil for plain HTTP.
	tls *tls.Conn
	// inRequest is set while a request is being served.
	inRequest atomic.Bool
	// head keeps the metadata header names of the request being read
	// (headnames.go). Only the connection's serving goroutine touches it.
	head sentHead
}

// Read also shows the head of each request to head; net/http reads a head
// only between requests.
func (c *headerLimitConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.inRequest.Load() {
		c.head.feed(p[:n])
	}
	return n, err
}

func (c *headerLimitConn) Write(p []byte) (int, error) {
	if !c.inRequest.Load() && bytes.HasPrefix(p, []byte(goTooLarge)) {
		if _, err := c.Conn.Write(headersTooLong); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// CloseWrite lets net/http half-close the connection after an error
// answer, so the client reads it before the connection is torn down.
func (c *headerLimitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// headerLimitReaderFrom is a headerLimitConn over a connection with a
// ReadFrom of its own. Response bodies are all that reach it, never Go's
// 431, so it needs no check.
type headerLimitReaderFrom struct{ *headerLimitConn }

func (c *headerLimitReaderFrom) ReadFrom(r io.Reader) (int64, error) {
	return c.Conn.(io.ReaderFrom).ReadFrom(r)
}

// headerLimitConnOf returns the headerLimitConn c is, or nil.
func headerLimitConnOf(c net.Conn) *headerLimitConn {
	switch hc := c.(type) {
	case *headerLimitConn:
		return hc
	case *headerLimitReaderFrom:
		return hc.headerLimitConn
	}
	return nil
}

type connKey struct{}

// connContext makes the connection reachable from its requests
// (http.Server.ConnContext).
func connContext(ctx context.Context, c net.Conn) context.Context {
	if hc := headerLimitConnOf(c); hc != nil {
		return context.WithValue(ctx, connKey{}, hc)
	}
	return ctx
}

// trackRequests is the outermost handler: it marks the connection as
// serving a request and gives the request its TLS state and the metadata
// names as sent.
func trackRequests(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hc, ok := r.Context().Value(connKey{}).(*headerLimitConn); ok {
			hc.inRequest.Store(true)
			if hc.head.metaNames != nil {
				restoreMetaNames(r.Header, hc.head.metaNames)
			}
			if r.TLS == nil && hc.tls != nil {
				state := hc.tls.ConnectionState()
				r.TLS = &state
			}
		}
		h.ServeHTTP(w, r)
	})
}

// trackIdle ends a connection's request when net/http reports it idle,
// after the response has been flushed, then calls next (when set).
func trackIdle(next func(net.Conn, http.ConnState)) func(net.Conn, http.ConnState) {
	return func(c net.Conn, state http.ConnState) {
		if state == http.StateIdle {
			if hc := headerLimitConnOf(c); hc != nil {
				hc.head.reset()
				hc.inRequest.Store(false)
			}
		}
		if next != nil {
			next(c, state)
		}
	}
}
