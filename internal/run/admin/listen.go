package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server is the admin listener, served apart from the storage services
// (plain HTTP even when they use TLS: it is meant for loopback).
type Server struct {
	ln      net.Listener
	srv     *http.Server
	done    chan error
	serving bool
}

// Listen binds addr for h.
func Listen(addr string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("admin listener: listen on %s: %w", addr, err)
	}
	return &Server{ln: ln, done: make(chan error, 1), srv: &http.Server{Handler: h,
		ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelDebug)}}, nil
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the listener's base URL, without a trailing slash.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Serve serves in the background.
func (s *Server) Serve() {
	s.serving = true
	go func() {
		err := s.srv.Serve(s.ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
}

// Shutdown stops the listener, letting in-flight requests finish until
// ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	if !s.serving {
		return s.ln.Close()
	}
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	return errors.Join(err, <-s.done)
}
