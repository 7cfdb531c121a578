package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Listener is one service bound to an address.
type Listener struct {
	Name    string
	Addr    string // as configured; Bound() gives the real address
	Handler http.Handler
	// ConnState, when set, follows the listener's connections (metrics).
	ConnState func(net.Conn, http.ConnState)
	// MaxConns bounds the connections served at once (0: no bound).
	MaxConns int

	ln  net.Listener
	srv *http.Server
	// With TLS, plainLn and plainSrv serve the clients that speak plain
	// HTTP to the port (plainhttp.go); nil without.
	plainLn  net.Listener
	plainSrv *http.Server
}

// headerTimeout bounds how long a client may take to send a request's
// headers (and, on a TLS port, its first byte; the TLS handshake, which
// runs as the first request is read, counts against the first request's).
const headerTimeout = 30 * time.Second

// Bound is the address the listener actually has (after port 0 picked one).
func (l *Listener) Bound() string { return l.ln.Addr().String() }

// Server runs a set of listeners and shuts them down together.
type Server struct {
	listeners []*Listener
	tls       *tls.Config
	wg        sync.WaitGroup
	errs      chan error
}

// Listen binds every listener before any is served, so a port conflict fails
// the start as a whole.
func Listen(listeners []*Listener, tlsConfig *tls.Config) (*Server, error) {
	s := &Server{listeners: listeners, tls: tlsConfig, errs: make(chan error, len(listeners))}
	for _, l := range listeners {
		ln, err := net.Listen("tcp", l.Addr)
		if err != nil {
			s.closeListeners()
			return nil, fmt.Errorf("%s service: listen on %s: %w", l.Name, l.Addr, err)
		}
		ln = LimitConns(ln, l.MaxConns)
		l.ln, l.srv = ln, l.httpServer()
		if tlsConfig != nil {
			split := newSplitListener(ln, tlsConfig, headerTimeout)
			l.ln, l.plainLn, l.plainSrv = split.secure, split.plain, l.httpServer()
		}
	}
	return s, nil
}

func (l *Listener) httpServer() *http.Server {
	// The connections come wrapped in a headerLimitConn (serve): these
	// hooks tell it when a request is being served (headerlimit.go).
	return &http.Server{
		Handler:           trackRequests(l.Handler),
		ConnContext:       connContext,
		ConnState:         trackIdle(l.ConnState),
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelDebug),
	}
}

func (s *Server) closeListeners() {
	for _, l := range s.listeners {
		if l.ln != nil {
			l.ln.Close()
		}
	}
}

// Listeners returns the bound listeners.
func (s *Server) Listeners() []*Listener { return s.listeners }

// Scheme is "https" with TLS, else "http".
func (s *Server) Scheme() string {
	if s.tls != nil {
		return "https"
	}
	return "http"
}

// Serve starts serving every listener in the background.
func (s *Server) Serve() {
	for _, l := range s.listeners {
		s.serve(l.Name, l.srv, l.ln)
		if l.plainSrv != nil {
			s.serve(l.Name, l.plainSrv, l.plainLn)
		}
	}
}

func (s *Server) serve(name string, srv *http.Server, ln net.Listener) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		// A TLS port's two servers share one socket: the first to shut
		// down closes it under the other, an orderly stop too.
		if err := srv.Serve(headerLimitListener{ln}); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			s.errs <- fmt.Errorf("%s service: %w", name, err)
		}
	}()
}

// Errors reports a listener that stopped unexpectedly.
func (s *Server) Errors() <-chan error { return s.errs }

// Shutdown stops accepting, lets in-flight requests finish (until ctx ends,
// after which the remaining connections are closed), then returns.
func (s *Server) Shutdown(ctx context.Context) error {
	var first error
	for _, l := range s.listeners {
		for _, srv := range []*http.Server{l.srv, l.plainSrv} {
			if srv == nil {
				continue
			}
			if err := srv.Shutdown(ctx); err != nil {
				_ = srv.Close()
				if first == nil {
					first = err
				}
			}
		}
	}
	s.wg.Wait()
	return first
}
