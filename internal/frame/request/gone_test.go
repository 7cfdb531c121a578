package request

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"syscall"
	"testing"
)

func TestInterruptedLevel(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name      string
		err       error
		cancelled bool
		want      slog.Level
	}{
		{"broken pipe", &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}, false, slog.LevelDebug},
		{"reset", fmt.Errorf("readfrom: %w", syscall.ECONNRESET), false, slog.LevelDebug},
		{"write timed out after the client left", &net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}, true, slog.LevelDebug},
		{"disk error after the client left", &os.PathError{Op: "read", Path: "extent", Err: syscall.EIO}, true, slog.LevelWarn},
		{"disk error", &os.PathError{Op: "read", Path: "extent", Err: syscall.EIO}, false, slog.LevelWarn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if tc.cancelled {
				r = r.WithContext(cancelled)
			}
			if got := InterruptedLevel(r, tc.err); got != tc.want {
				t.Fatalf("level %v, want %v", got, tc.want)
			}
		})
	}
}
