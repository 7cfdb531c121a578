package smb_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// startSMB runs the SMB endpoint alone (a share is not needed to log on),
// with configure applied to the configuration.
func startSMB(t *testing.T, configure func(*config.Config)) *lazulitest.Instance {
	t.Helper()
	return lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"smb"}, Configure: configure})
}

// closedByServer waits (at most a generous bound, as a failure guard, not a
// measure) for the server to close the connection.
func (c *rawConn) closedByServer() {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := c.nc.Read(make([]byte, 1))
	if errors.Is(err, os.ErrDeadlineExceeded) || err == nil {
		c.t.Fatalf("the server kept the connection: %v", err)
	}
}

// echo sends an ECHO and fails unless it is answered with success.
func (c *rawConn) echo() {
	c.t.Helper()
	if st, _ := c.send(request{cmd: 13, body: []byte{4, 0, 0, 0}}); st[0] != 0 {
		c.t.Fatalf("echo: %#x", st[0])
	}
}

// TestPendingSessionsCapped: NTLM NEGOTIATE session setups that never
// authenticate each hold a logon in progress; past 16 on one connection a
// new one is refused with STATUS_INSUFFICIENT_RESOURCES, as Samba does
// when its session table is full, and the connection still answers.
func TestPendingSessionsCapped(t *testing.T) {
	in := startSMB(t, nil)
	c := negotiateRaw(t, in.SMBAddr)
	for i := range 200 {
		c.sessionID = 0
		st, _ := c.send(request{cmd: 1, body: setupRequest(ntlmNegotiate())})
		want := uint32(0xC0000016) // STATUS_MORE_PROCESSING_REQUIRED
		if i >= 16 {
			want = 0xC000009A // STATUS_INSUFFICIENT_RESOURCES
		}
		if st[0] != want {
			t.Fatalf("session setup %d: %#x, want %#x", i+1, st[0], want)
		}
	}
	c.echo()
	// A logon still completes on another connection: the cap is per
	// connection.
	logonRaw(t, in.SMBAddr)
}

// TestUnauthenticatedConnectionClosed: a connection that has not logged
// on within --smbAuthTimeout of its accept is closed; one that logged on
// in time is not, though it was accepted earlier.
func TestUnauthenticatedConnectionClosed(t *testing.T) {
	in := startSMB(t, func(c *config.Config) { c.SMBAuthTimeout, c.SMBIdleTimeout = time.Second, 0 })
	loggedOn := logonRaw(t, in.SMBAddr)
	negotiated := negotiateRaw(t, in.SMBAddr)
	silent, err := net.Dial("tcp", in.SMBAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	negotiated.closedByServer()
	(&rawConn{t: t, nc: silent}).closedByServer()
	loggedOn.echo()
}

// TestIdleConnectionClosed: a logged-on connection with no open file is
// closed after --smbIdleTimeout without a request; one holding a file
// open stays, and is closed once idle after closing it.
func TestIdleConnectionClosed(t *testing.T) {
	in, _ := startConfigured(t, func(c *config.Config) { c.SMBIdleTimeout = 300 * time.Millisecond })
	holder := dialRaw(t, in.SMBAddr)
	st, msgs := holder.send(request{cmd: 5, body: createRequest("")})
	if st[0] != 0 {
		t.Fatalf("open the root: %#x", st[0])
	}
	fileID := msgs[0][64+64 : 64+80]
	idle := dialRaw(t, in.SMBAddr) // connected after the holder's last request
	idle.closedByServer()
	holder.echo()
	closeReq := closeRequest()
	copy(closeReq[8:], fileID)
	if st, _ := holder.send(request{cmd: 6, body: closeReq}); st[0] != 0 {
		t.Fatalf("close: %#x", st[0])
	}
	holder.closedByServer()
}

// TestMaxConnsCoversSMB: with --maxConns 1 a second SMB connection waits,
// unanswered, until the first closes.
func TestMaxConnsCoversSMB(t *testing.T) {
	in := startSMB(t, func(c *config.Config) { c.MaxConns = 1 })
	first := negotiateRaw(t, in.SMBAddr)
	nc, err := net.Dial("tcp", in.SMBAddr) // the kernel's accept queue takes it
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	second := &rawConn{t: t, nc: nc}
	second.write(negotiate21())
	_ = nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := nc.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a second connection was served beyond --maxConns 1: %v", err)
	}
	first.nc.Close()
	_ = nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	if st, _ := second.responses(); st[0] != 0 {
		t.Fatalf("negotiate once the first closed: %#x", st[0])
	}
}

// TestSMBConnectionsInMetric: lazuli_open_connections{listener="smb"}
// counts the SMB connections open, logged on or not.
func TestSMBConnectionsInMetric(t *testing.T) {
	in := startSMB(t, nil)
	a, b := negotiateRaw(t, in.SMBAddr), logonRaw(t, in.SMBAddr)
	if got := smbConnections(t, in); got != "2" {
		t.Fatalf("open SMB connections %q, want 2", got)
	}
	a.nc.Close()
	b.nc.Close()
	for i := 0; smbConnections(t, in) != "0"; i++ { // the server notices asynchronously
		if i == 500 {
			t.Fatalf("open SMB connections %q after both closed, want 0", smbConnections(t, in))
		}
		waitABit()
	}
}

// smbConnections reads the SMB listener's open-connection gauge from
// /metrics ("" when absent).
func smbConnections(t *testing.T, in *lazulitest.Instance) string {
	t.Helper()
	resp, err := http.Get(in.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), `lazuli_open_connections{listener="smb"} `); ok {
			return v
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return ""
}
