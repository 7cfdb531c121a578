package smb_test

import (
	"testing"
	"time"
)

func notifyRequest(fileID []byte, outLen, filter uint32, recursive bool) []byte {
	b := make([]byte, 32)
	le.PutUint16(b, 32)
	if recursive {
		le.PutUint16(b[2:], 1)
	}
	le.PutUint32(b[4:], outLen)
	copy(b[8:], fileID)
	le.PutUint32(b[24:], filter)
	return b
}

// notification is one FILE_NOTIFY_INFORMATION entry.
type notification struct {
	action uint32
	name   string
}

// notifications decodes a CHANGE_NOTIFY response message.
func notifications(t *testing.T, msg []byte) []notification {
	t.Helper()
	off, n := int(le.Uint16(msg[64+2:])), int(le.Uint32(msg[64+4:]))
	if n == 0 {
		return nil
	}
	buf := msg[off : off+n]
	var out []notification
	for {
		next, action, size := le.Uint32(buf), le.Uint32(buf[4:]), le.Uint32(buf[8:])
		name := []rune{}
		for i := 0; i < int(size); i += 2 {
			name = append(name, rune(le.Uint16(buf[12+i:])))
		}
		out = append(out, notification{action, string(name)})
		if next == 0 {
			return out
		}
		buf = buf[next:]
	}
}

// readWithin reads the next frame, failing if none comes within d.
func (c *rawConn) readWithin(d time.Duration) []byte {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	defer c.nc.SetReadDeadline(time.Time{})
	return c.readFrame()
}

// TestChangeNotify: a CHANGE_NOTIFY on a directory handle waits
// (STATUS_PENDING) and completes with the change when a file is created
// over REST in the directory; one over SMB completes the next; a change
// made while no request is pending is answered at once by the next one;
// CANCEL ends a waiting one, and CLOSE ends one with NOTIFY_CLEANUP.
func TestChangeNotify(t *testing.T) {
	in, sh := startWithShare(t)
	if _, err := sh.NewRootDirectoryClient().NewSubdirectoryClient("watched").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	st, msgs := c.send(request{cmd: 5, body: createRequest("watched")})
	if st[0] != 0 {
		t.Fatalf("open the directory: %#x", st[0])
	}
	dir := msgs[0][64+64 : 64+80]
	const fileName = 0x1
	wait := func(what string) {
		t.Helper()
		st, msgs := c.send(request{cmd: 15, body: notifyRequest(dir, 4096, fileName, false)})
		if st[0] != 0x103 || le.Uint32(msgs[0][16:])&0x2 == 0 {
			t.Fatalf("%s: CHANGE_NOTIFY answered %#x, want an async STATUS_PENDING", what, st[0])
		}
	}
	expect := func(msg []byte, want ...notification) {
		t.Helper()
		if got := le.Uint32(msg[8:]); got != 0 {
			t.Fatalf("completion status %#x", got)
		}
		got := notifications(t, msg)
		if len(got) != len(want) {
			t.Fatalf("notifications %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("notifications %+v, want %+v", got, want)
			}
		}
	}

	wait("REST create")
	if _, err := sh.NewRootDirectoryClient().NewSubdirectoryClient("watched").NewFileClient("rest.txt").Create(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}
	expect(c.readWithin(10*time.Second), notification{1, "rest.txt"})

	wait("REST rename")
	if _, err := sh.NewRootDirectoryClient().NewSubdirectoryClient("watched").NewFileClient("rest.txt").Rename(ctx, "watched/moved.txt", nil); err != nil {
		t.Fatal(err)
	}
	expect(c.readWithin(10*time.Second), notification{4, "rest.txt"}, notification{5, "moved.txt"})

	wait("SMB create")
	create := createRequest(`watched\smb.txt`)
	le.PutUint32(create[36:], 2) // FILE_CREATE
	if st, _ := dialRaw(t, in.SMBAddr).send(request{cmd: 5, body: create}); st[0] != 0 {
		t.Fatalf("SMB create: %#x", st[0])
	}
	expect(c.readWithin(10*time.Second), notification{1, "smb.txt"})

	// A change while nothing waits is kept for the next request.
	if _, err := sh.NewRootDirectoryClient().NewSubdirectoryClient("watched").NewFileClient("second.txt").Create(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}
	st, msgs = c.send(request{cmd: 15, body: notifyRequest(dir, 4096, fileName, false)})
	if st[0] != 0 {
		t.Fatalf("a change made before the request: %#x, want an answer at once", st[0])
	}
	expect(msgs[0], notification{1, "second.txt"})

	// CANCEL, then CLOSE of the directory handle.
	st, msgs = c.send(request{cmd: 15, body: notifyRequest(dir, 4096, fileName, false)})
	if st[0] != 0x103 {
		t.Fatalf("notify: %#x", st[0])
	}
	c.cancel(le.Uint64(msgs[0][32:]))
	if msg := c.readWithin(10 * time.Second); le.Uint32(msg[8:]) != 0xC0000120 {
		t.Fatalf("after CANCEL: %#x, want STATUS_CANCELLED", le.Uint32(msg[8:]))
	}
	wait("close")
	closeDir := make([]byte, 24)
	le.PutUint16(closeDir, 24)
	copy(closeDir[8:], dir)
	// The CLOSE's answer and the watch's end come in either order.
	_, msgs = c.send(request{cmd: 6, body: closeDir})
	closed, ended := msgs[0], c.readWithin(10*time.Second)
	if le.Uint16(closed[12:]) == 15 {
		closed, ended = ended, closed
	}
	if le.Uint32(closed[8:]) != 0 || le.Uint16(ended[12:]) != 15 || le.Uint32(ended[8:]) != 0x10B {
		t.Fatalf("after CLOSE: close %#x, watch %#x, want OK and STATUS_NOTIFY_CLEANUP", le.Uint32(closed[8:]), le.Uint32(ended[8:]))
	}
}
