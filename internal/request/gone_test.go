package request

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
		{"context ended", errors.New("write: i/o timeout"), true, slog.LevelDebug},
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
