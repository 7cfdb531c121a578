package request

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
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
		{"broken pipe", &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}, true, slog.LevelDebug},
		{"reset", fmt.Errorf("readfrom: %w", syscall.ECONNRESET), true, slog.LevelDebug},
		{"a storage connection reset, the client still there", fmt.Errorf("read: %w", syscall.ECONNRESET), false, slog.LevelWarn},
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

// TestClientGoneOnRealSockets: net/http ends the request's context as soon
// as a read of the body or a write of the answer fails because the client
// left, so ClientGone, which asks the context first, sees both.
func TestClientGoneOnRealSockets(t *testing.T) {
	gone := make(chan bool, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		if r.Method == http.MethodPut {
			_, err = io.Copy(io.Discard, r.Body)
		} else {
			chunk := make([]byte, 64<<10)
			for err == nil {
				_, err = w.Write(chunk)
			}
		}
		gone <- azerr.ClientGone(r, err)
	}))
	defer srv.Close()
	for _, req := range []string{
		"PUT /b HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\nonly a little",
		"GET /b HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		for _, reset := range []bool{false, true} {
			clientLeaves(t, srv.Listener.Addr().String(), req, reset, gone)
		}
	}
}

// clientLeaves sends req, reads a little of the answer to a GET, then
// closes the connection (with a reset, as a killed client's, when reset is
// set) and checks what the handler saw.
func clientLeaves(t *testing.T, addr, req string, reset bool, gone <-chan bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(req, "GET") {
		if _, err := c.Read(make([]byte, 1024)); err != nil {
			t.Fatal(err)
		}
	}
	if reset {
		_ = c.(*net.TCPConn).SetLinger(0)
	}
	c.Close()
	select {
	case ok := <-gone:
		if !ok {
			t.Errorf("%s (reset %v): the client's leaving was not ClientGone", strings.Fields(req)[0], reset)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the handler never saw the client leave", strings.Fields(req)[0])
	}
}
