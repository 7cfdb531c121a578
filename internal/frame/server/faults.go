package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/fault"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
)

// errFaultClose is what a handler's write sees once a fault rule has cut
// the response; the chain then drops the connection.
var errFaultClose = errors.New("fault rule closed the connection")

// routedHook returns the request's Routed hook: once the operation is
// known, the fault rules decide whether the request is delayed, answered
// with an injected error, or has its connection cut mid-body.
func (c *chain) routedHook(w *statusWriter, r *http.Request, info *request.Info) func(op string) error {
	return func(op string) error {
		if c.opts.Faults.Empty() {
			return nil
		}
		a := c.opts.Faults.Match(fault.Request{Service: string(c.svc.Name()), Account: info.Account,
			Operation: op, Path: info.Path})
		if a == nil {
			return nil
		}
		w.faultRule = a.RuleID
		if err := sleep(r.Context(), a.Latency); err != nil {
			return err
		}
		if a.Err != nil {
			return a.Err
		}
		w.cut = a.Close
		return nil
	}
}

// sleep waits d of wall time, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cutWriteHeader holds the status of a response that a fault rule will cut:
// it is sent with the first body bytes, so a response without a body loses
// its connection before any answer.
func (s *statusWriter) cutWriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

// cutWrite sends at most half the response body (half the Content-Length
// when it is known, else half of this write), flushes it, and fails.
func (s *statusWriter) cutWrite(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	if s.budget < 0 {
		s.budget = int64(len(b)) / 2
		if n, err := strconv.ParseInt(s.Header().Get("Content-Length"), 10, 64); err == nil {
			s.budget = n / 2
		}
		s.ResponseWriter.WriteHeader(s.status)
	}
	allowed := min(int64(len(b)), s.budget-s.bytes)
	n, _ := s.ResponseWriter.Write(b[:max(allowed, 0)])
	s.bytes += int64(n)
	if int64(len(b)) <= allowed {
		return n, nil
	}
	_ = http.NewResponseController(s.ResponseWriter).Flush()
	return n, errFaultClose
}

// writerOnly hides ReadFrom so that io.Copy goes through Write.
type writerOnly struct{ io.Writer }
