package smb_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"unicode/utf16"

	//lint:ignore SA1019 NTLM's NT hash is defined over MD4
	"golang.org/x/crypto/md4"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

var le = binary.LittleEndian

// rawConn is a minimal SMB 2.1 client speaking raw NTLMSSP (no SPNEGO),
// as the Linux kernel does, and able to send compound chains.
type rawConn struct {
	t         *testing.T
	nc        net.Conn
	msgID     uint64
	sessionID uint64
	treeID    uint32
}

func u16(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		le.PutUint16(b[2*i:], c)
	}
	return b
}

// request is one command of a chain: its body and whether it is related
// to the previous one.
type request struct {
	cmd     uint16
	body    []byte
	related bool
}

// send writes one chain and returns the responses: each header's status
// and the body after it.
func (c *rawConn) send(reqs ...request) (statuses []uint32, bodies [][]byte) {
	c.t.Helper()
	c.write(reqs...)
	return c.responses()
}

// write sends one chain without waiting for its answer.
func (c *rawConn) write(reqs ...request) {
	c.t.Helper()
	var frame []byte
	for i, r := range reqs {
		h := make([]byte, 64)
		copy(h, "\xFESMB")
		le.PutUint16(h[4:], 64)
		le.PutUint16(h[6:], 1)
		le.PutUint16(h[12:], r.cmd)
		le.PutUint16(h[14:], 64)
		if r.related {
			le.PutUint32(h[16:], 0x4)
		}
		le.PutUint64(h[24:], c.msgID)
		c.msgID++
		le.PutUint32(h[36:], c.treeID)
		le.PutUint64(h[40:], c.sessionID)
		msg := append(h, r.body...)
		if i < len(reqs)-1 {
			for len(msg)%8 != 0 {
				msg = append(msg, 0)
			}
			le.PutUint32(msg[20:], uint32(len(msg)))
		}
		frame = append(frame, msg...)
	}
	out := []byte{0, byte(len(frame) >> 16), byte(len(frame) >> 8), byte(len(frame))}
	if _, err := c.nc.Write(append(out, frame...)); err != nil {
		c.t.Fatal(err)
	}
}

// responses reads one frame and splits it into its responses.
func (c *rawConn) responses() (statuses []uint32, bodies [][]byte) {
	c.t.Helper()
	var hdr [4]byte
	if _, err := io.ReadFull(c.nc, hdr[:]); err != nil {
		c.t.Fatal(err)
	}
	resp := make([]byte, int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3]))
	if _, err := io.ReadFull(c.nc, resp); err != nil {
		c.t.Fatal(err)
	}
	for {
		next := le.Uint32(resp[20:])
		msg := resp
		if next != 0 {
			msg = resp[:next]
		}
		statuses = append(statuses, le.Uint32(msg[8:]))
		bodies = append(bodies, msg)
		if next == 0 {
			return statuses, bodies
		}
		resp = resp[next:]
	}
}

// negotiateRaw connects to addr and negotiates SMB 2.1.
func negotiateRaw(t *testing.T, addr string) *rawConn {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	c := &rawConn{t: t, nc: nc}
	if st, _ := c.send(negotiate21()); st[0] != 0 {
		t.Fatalf("negotiate: %#x", st[0])
	}
	return c
}

// negotiate21 is a NEGOTIATE offering SMB 2.1 only, with signing enabled.
func negotiate21() request {
	neg := make([]byte, 36)
	le.PutUint16(neg, 36)
	le.PutUint16(neg[2:], 1)
	le.PutUint16(neg[4:], 1)
	return request{cmd: 0, body: append(neg, 0x10, 0x02)}
}

// ntlmNegotiate is the first message of a raw NTLMSSP logon.
func ntlmNegotiate() []byte {
	msg := append([]byte("NTLMSSP\x00\x01\x00\x00\x00"), 0x15, 0x82, 0x08, 0x60)
	return append(msg, make([]byte, 16)...)
}

// dialRaw negotiates SMB 2.1, logs on with raw NTLMv2 and connects "share".
func dialRaw(t *testing.T, addr string) *rawConn {
	c := logonRaw(t, addr)
	path := u16(`\\127.0.0.1\share`)
	tc := make([]byte, 8)
	le.PutUint16(tc, 9)
	le.PutUint16(tc[4:], 64+8)
	le.PutUint16(tc[6:], uint16(len(path)))
	st, msgs := c.send(request{cmd: 3, body: append(tc, path...)})
	if st[0] != 0 {
		t.Fatalf("tree connect: %#x", st[0])
	}
	c.treeID = le.Uint32(msgs[0][36:])
	return c
}

// logonRaw negotiates SMB 2.1 and logs on with raw NTLMv2.
func logonRaw(t *testing.T, addr string) *rawConn {
	c := negotiateRaw(t, addr)
	st, msgs := c.send(request{cmd: 1, body: setupRequest(ntlmNegotiate())})
	if st[0] != 0xC0000016 {
		t.Fatalf("session setup 1: %#x", st[0])
	}
	c.sessionID = le.Uint64(msgs[0][40:])
	chal := msgs[0][64+le.Uint16(msgs[0][68:])-64:]
	chal = chal[:le.Uint16(msgs[0][70:])]
	serverChallenge := chal[24:32]
	info := chal[le.Uint32(chal[44:]):][:le.Uint16(chal[40:])]
	h := md4.New()
	h.Write(u16(auth.DevAccountKey))
	m := hmac.New(md5.New, h.Sum(nil))
	m.Write(u16(strings.ToUpper(auth.DevAccountName) + "LINUX"))
	key := m.Sum(nil)
	blob := append([]byte{1, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0, 0}, info...)
	blob = append(blob, 0, 0, 0, 0)
	m = hmac.New(md5.New, key)
	m.Write(serverChallenge)
	m.Write(blob)
	ntResp := append(m.Sum(nil), blob...)
	authMsg := make([]byte, 64)
	copy(authMsg, "NTLMSSP\x00\x03")
	field := func(at int, v []byte) {
		le.PutUint16(authMsg[at:], uint16(len(v)))
		le.PutUint16(authMsg[at+2:], uint16(len(v)))
		le.PutUint32(authMsg[at+4:], uint32(len(authMsg)))
		authMsg = append(authMsg, v...)
	}
	field(12, nil)
	field(20, ntResp)
	field(28, u16("LINUX"))
	field(36, u16(auth.DevAccountName))
	field(44, nil)
	field(52, nil)
	le.PutUint32(authMsg[60:], 0x60088215)
	if st, _ := c.send(request{cmd: 1, body: setupRequest(authMsg)}); st[0] != 0 {
		t.Fatalf("session setup 2: %#x", st[0])
	}
	return c
}

func setupRequest(token []byte) []byte {
	b := make([]byte, 24)
	le.PutUint16(b, 25)
	le.PutUint16(b[12:], 64+24)
	le.PutUint16(b[14:], uint16(len(token)))
	return append(b, token...)
}

func createRequest(name string) []byte {
	n := u16(name)
	b := make([]byte, 56)
	le.PutUint16(b, 57)
	le.PutUint32(b[24:], 0x80) // FILE_READ_ATTRIBUTES
	le.PutUint32(b[32:], 7)
	le.PutUint32(b[36:], 1) // FILE_OPEN
	le.PutUint16(b[44:], 64+56)
	le.PutUint16(b[46:], uint16(len(n)))
	return append(b, n...)
}

var relatedFileID = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

func queryNetworkOpen() []byte {
	b := make([]byte, 40)
	le.PutUint16(b, 41)
	b[2], b[3] = 1, 34
	le.PutUint32(b[4:], 56)
	copy(b[24:], relatedFileID)
	return b
}

func closeRequest() []byte {
	b := make([]byte, 24)
	le.PutUint16(b, 24)
	copy(b[8:], relatedFileID)
	return b
}

// TestCompoundOpenQueryClose sends the Linux kernel's open + query_info +
// close chain over raw NTLMSSP: the related requests use the FileId the
// CREATE returned, and a failed CREATE fails the rest of the chain.
func TestCompoundOpenQueryClose(t *testing.T) {
	in, sh := startWithShare(t)
	if _, err := sh.NewRootDirectoryClient().NewFileClient("c.txt").Create(ctx, 12345, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	chain := func(name string) ([]uint32, [][]byte) {
		return c.send(request{cmd: 5, body: createRequest(name)}, request{cmd: 16, body: queryNetworkOpen(), related: true},
			request{cmd: 6, body: closeRequest(), related: true})
	}
	st, msgs := chain("c.txt")
	if len(st) != 3 || st[0] != 0 || st[1] != 0 || st[2] != 0 {
		t.Fatalf("statuses %#x", st)
	}
	if size := le.Uint64(msgs[1][64+8+40:]); size != 12345 {
		t.Fatalf("EndOfFile from the related query = %d", size)
	}
	st, _ = chain("missing.txt")
	for i, s := range st {
		if s != 0xC0000034 {
			t.Fatalf("chain on a missing file: status %d = %#x, want OBJECT_NAME_NOT_FOUND", i, s)
		}
	}
	if len(st) != 3 {
		t.Fatalf("%d responses, want 3", len(st))
	}
}

// cancel sends a CANCEL for the pending request asyncID; it has no answer
// of its own.
func (c *rawConn) cancel(asyncID uint64) {
	c.t.Helper()
	msg := make([]byte, 64)
	copy(msg, "\xFESMB")
	le.PutUint16(msg[4:], 64)
	le.PutUint16(msg[12:], 12)
	le.PutUint32(msg[16:], 0x2)
	le.PutUint64(msg[32:], asyncID)
	le.PutUint64(msg[40:], c.sessionID)
	if _, err := c.nc.Write(append([]byte{0, 0, 0, 64}, msg...)); err != nil {
		c.t.Fatal(err)
	}
}

// readFrame reads one more response frame (an async completion).
func (c *rawConn) readFrame() []byte {
	c.t.Helper()
	var hdr [4]byte
	if _, err := io.ReadFull(c.nc, hdr[:]); err != nil {
		c.t.Fatal(err)
	}
	resp := make([]byte, int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3]))
	if _, err := io.ReadFull(c.nc, resp); err != nil {
		c.t.Fatal(err)
	}
	return resp
}

func lockRequest(fileID []byte, off, length uint64, flags uint32) []byte {
	b := make([]byte, 48)
	le.PutUint16(b, 48)
	le.PutUint16(b[2:], 1)
	copy(b[8:], fileID)
	le.PutUint64(b[24:], off)
	le.PutUint64(b[32:], length)
	le.PutUint32(b[40:], flags)
	return b
}

// TestBlockingLock: a lock that conflicts and may wait is answered with
// STATUS_PENDING, granted when the holder unlocks; a CANCEL ends a waiting
// one with STATUS_CANCELLED.
func TestBlockingLock(t *testing.T) {
	in, sh := startWithShare(t)
	if _, err := sh.NewRootDirectoryClient().NewFileClient("l.txt").Create(ctx, 100, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	open := func() []byte {
		st, msgs := c.send(request{cmd: 5, body: createRequest("l.txt")})
		if st[0] != 0 {
			t.Fatalf("create: %#x", st[0])
		}
		return msgs[0][64+64 : 64+80]
	}
	h1, h2 := open(), open()
	if st, _ := c.send(request{cmd: 10, body: lockRequest(h1, 0, 10, 0x2|0x10)}); st[0] != 0 {
		t.Fatalf("first lock: %#x", st[0])
	}
	if st, _ := c.send(request{cmd: 10, body: lockRequest(h2, 5, 10, 0x2|0x10)}); st[0] != 0xC0000055 {
		t.Fatalf("fail-immediately lock over it: %#x, want LOCK_NOT_GRANTED", st[0])
	}
	st, msgs := c.send(request{cmd: 10, body: lockRequest(h2, 5, 10, 0x2)})
	if st[0] != 0x103 || le.Uint32(msgs[0][16:])&0x2 == 0 {
		t.Fatalf("blocking lock: %#x, want an async STATUS_PENDING", st[0])
	}
	asyncID := le.Uint64(msgs[0][32:])
	// The holder unlocks: the unlock's response and the waiter's completion
	// both arrive, in either order.
	_, msgs = c.send(request{cmd: 10, body: lockRequest(h1, 0, 10, 0x4)})
	final := c.readFrame()
	if le.Uint64(msgs[0][32:]) == asyncID {
		msgs[0], final = final, msgs[0]
	}
	if le.Uint32(msgs[0][8:]) != 0 || le.Uint32(final[8:]) != 0 || le.Uint64(final[32:]) != asyncID {
		t.Fatalf("unlock %#x, waiter completion %#x", le.Uint32(msgs[0][8:]), le.Uint32(final[8:]))
	}
	// Now h1 waits on h2's lock, and is cancelled.
	st, msgs = c.send(request{cmd: 10, body: lockRequest(h1, 0, 10, 0x2)})
	if st[0] != 0x103 {
		t.Fatalf("second blocking lock: %#x", st[0])
	}
	c.cancel(le.Uint64(msgs[0][32:]))
	if got := le.Uint32(c.readFrame()[8:]); got != 0xC0000120 {
		t.Fatalf("cancelled lock: %#x, want STATUS_CANCELLED", got)
	}
}

// TestByteLocksRefuseREST: REST Get File and Put Range over a range an SMB
// client locked get 409 FileLockConflict; outside it, and after the
// unlock, they work.
func TestByteLocksRefuseREST(t *testing.T) {
	in, sh := startWithShare(t)
	fc := sh.NewRootDirectoryClient().NewFileClient("r.txt")
	if _, err := fc.Create(ctx, 100, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	st, msgs := c.send(request{cmd: 5, body: createRequest("r.txt")})
	if st[0] != 0 {
		t.Fatalf("create: %#x", st[0])
	}
	h := msgs[0][64+64 : 64+80]
	if st, _ := c.send(request{cmd: 10, body: lockRequest(h, 10, 10, 0x2|0x10)}); st[0] != 0 {
		t.Fatalf("lock: %#x", st[0])
	}
	get := func(off, n int64) error {
		r, err := fc.DownloadStream(ctx, &file.DownloadStreamOptions{Range: file.HTTPRange{Offset: off, Count: n}})
		if err == nil {
			r.Body.Close()
		}
		return err
	}
	put := func(off int64) error {
		_, err := fc.UploadRange(ctx, off, streaming.NopCloser(bytes.NewReader(make([]byte, 5))), nil)
		return err
	}
	for name, err := range map[string]error{"Get File": get(15, 2), "Get File (whole)": get(0, 0), "Put Range": put(12)} {
		if !fileerror.HasCode(err, fileerror.FileLockConflict) {
			t.Errorf("%s over the locked range: %v, want 409 FileLockConflict", name, err)
		}
	}
	if err := get(50, 5); err != nil {
		t.Errorf("Get File outside the lock: %v", err)
	}
	if err := put(40); err != nil {
		t.Errorf("Put Range outside the lock: %v", err)
	}
	if st, _ := c.send(request{cmd: 10, body: lockRequest(h, 10, 10, 0x4)}); st[0] != 0 {
		t.Fatalf("unlock: %#x", st[0])
	}
	if err := put(12); err != nil {
		t.Errorf("Put Range after the unlock: %v", err)
	}
}

// TestRESTRenameOfAnOpenFile: REST may rename a file an SMB handle holds
// when the handle shares delete; the handle follows the file, and closing
// it releases the file at its new name.
func TestRESTRenameOfAnOpenFile(t *testing.T) {
	in, sh := startWithShare(t)
	fc := sh.NewRootDirectoryClient().NewFileClient("old.txt")
	if _, err := fc.Create(ctx, 321, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	body := createRequest("old.txt")
	le.PutUint32(body[24:], 0x10080) // DELETE | FILE_READ_ATTRIBUTES, shared with everyone
	st, msgs := c.send(request{cmd: 5, body: body})
	if st[0] != 0 {
		t.Fatalf("create: %#x", st[0])
	}
	h := msgs[0][64+64 : 64+80]
	if _, err := fc.Rename(ctx, "new.txt", nil); err != nil {
		t.Fatalf("REST rename of a file open with share delete: %v", err)
	}
	nc := sh.NewRootDirectoryClient().NewFileClient("new.txt")
	if _, err := nc.Delete(ctx, nil); !fileerror.HasCode(err, fileerror.SharingViolation) {
		t.Fatalf("REST delete of the renamed, still open file: %v", err)
	}
	q := queryNetworkOpen()
	copy(q[24:], h)
	st, msgs = c.send(request{cmd: 16, body: q})
	if st[0] != 0 || le.Uint64(msgs[0][64+8+40:]) != 321 {
		t.Fatalf("query through the handle after the rename: %#x", st[0])
	}
	cl := closeRequest()
	copy(cl[8:], h)
	if st, _ := c.send(request{cmd: 6, body: cl}); st[0] != 0 {
		t.Fatalf("close: %#x", st[0])
	}
	if _, err := nc.Delete(ctx, nil); err != nil {
		t.Fatalf("REST delete after the close: %v", err)
	}
}

func readRequest(fileID []byte, length uint32) []byte {
	b := make([]byte, 49)
	le.PutUint16(b, 49)
	le.PutUint32(b[4:], length)
	copy(b[16:], fileID)
	return b
}

// TestCompoundErrors: a chain that starts with a related request is
// invalid throughout; a failed CREATE fails the related requests after it,
// but any other failure stays its own (a READ without read access, then a
// query and a CLOSE of the same open succeed), as Windows and smbd answer.
func TestCompoundErrors(t *testing.T) {
	in, sh := startWithShare(t)
	if _, err := sh.NewRootDirectoryClient().NewFileClient("e.txt").Create(ctx, 10, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	st, _ := c.send(request{cmd: 6, body: closeRequest(), related: true}, request{cmd: 6, body: closeRequest(), related: true})
	for i, s := range st {
		if s != 0xC000000D {
			t.Fatalf("chain starting related: status %d = %#x, want INVALID_PARAMETER", i, s)
		}
	}
	st, _ = c.send(request{cmd: 5, body: createRequest("e.txt")}, request{cmd: 8, body: readRequest(relatedFileID, 1), related: true},
		request{cmd: 16, body: queryNetworkOpen(), related: true}, request{cmd: 6, body: closeRequest(), related: true})
	want := []uint32{0, 0xC0000022, 0, 0}
	for i := range want {
		if i >= len(st) || st[i] != want[i] {
			t.Fatalf("statuses %#x, want %#x", st, want)
		}
	}
}

// renameRequest is a SET_INFO FileRenameInformation of fileID to name.
func renameRequest(fileID []byte, name string) []byte {
	n := u16(name)
	info := make([]byte, 20)
	le.PutUint32(info[16:], uint32(len(n)))
	info = append(info, n...)
	b := make([]byte, 32)
	le.PutUint16(b, 33)
	b[2], b[3] = 1, 10 // SMB2_0_INFO_FILE, FileRenameInformation
	le.PutUint32(b[4:], uint32(len(info)))
	le.PutUint16(b[8:], 64+32)
	copy(b[16:], fileID)
	return append(b, info...)
}

// openRequest is a CREATE of name with the given access, share mode,
// disposition and options.
func openRequest(name string, access, share, disposition, options uint32) []byte {
	b := createRequest(name)
	le.PutUint32(b[24:], access)
	le.PutUint32(b[32:], share)
	le.PutUint32(b[36:], disposition)
	le.PutUint32(b[40:], options)
	return b
}

// TestRenameSharing: an SMB rename acts as an open of the parent
// directory asking for delete and sharing reads and writes, as on
// Windows: a parent handle holding delete access refuses it, one without
// it that shares delete does not; a directory with an open file below it
// cannot be renamed.
func TestRenameSharing(t *testing.T) {
	in, sh := startWithShare(t)
	dir := sh.NewRootDirectoryClient().NewSubdirectoryClient("p")
	if _, err := dir.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dir.NewFileClient("f.txt").Create(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	const del, readAttrs, all = 0x10000, 0x80, 7
	open := func(name string, access, options uint32) []byte {
		t.Helper()
		st, msgs := c.send(request{cmd: 5, body: openRequest(name, access, all, 1, options)})
		if st[0] != 0 {
			t.Fatalf("open %s: %#x", name, st[0])
		}
		return msgs[0][64+64 : 64+80]
	}
	closeHandle := func(id []byte) {
		b := make([]byte, 24)
		le.PutUint16(b, 24)
		copy(b[8:], id)
		c.send(request{cmd: 6, body: b})
	}
	file := open(`p\f.txt`, del, 0x40)
	parent := open("p", del|readAttrs, 0x1)
	if st, _ := c.send(request{cmd: 17, body: renameRequest(file, `p\g.txt`)}); st[0] != 0xC0000043 {
		t.Fatalf("rename while the parent is open with delete access: %#x, want SHARING_VIOLATION", st[0])
	}
	closeHandle(parent)
	parent = open("p", readAttrs, 0x1)
	if st, _ := c.send(request{cmd: 17, body: renameRequest(file, `p\g.txt`)}); st[0] != 0 {
		t.Fatalf("rename beside a parent handle without delete access: %#x", st[0])
	}
	closeHandle(parent)
	d := open("p", del, 0x1)
	if st, _ := c.send(request{cmd: 17, body: renameRequest(d, "q")}); st[0] != 0xC0000022 {
		t.Fatalf("rename of a directory with an open file below: %#x, want ACCESS_DENIED", st[0])
	}
	closeHandle(file)
	if st, _ := c.send(request{cmd: 17, body: renameRequest(d, "q")}); st[0] != 0 {
		t.Fatalf("rename of the directory once nothing below is open: %#x", st[0])
	}
}

// lockRequests is a LOCK of several elements {offset, length, flags}.
func lockRequests(fileID []byte, elems ...[3]uint64) []byte {
	b := make([]byte, 24+24*len(elems))
	le.PutUint16(b, 48)
	le.PutUint16(b[2:], uint16(len(elems)))
	copy(b[8:], fileID)
	for i, e := range elems {
		x := b[24+24*i:]
		le.PutUint64(x, e[0])
		le.PutUint64(x[8:], e[1])
		le.PutUint32(x[16:], uint32(e[2]))
	}
	return b
}

// TestLockRequestRules: several locks in one request are all or nothing;
// a request mixing locks and unlocks, or holding several locks of which
// one would wait, is invalid; unlocks apply in order until one fails.
func TestLockRequestRules(t *testing.T) {
	in, sh := startWithShare(t)
	if _, err := sh.NewRootDirectoryClient().NewFileClient("m.txt").Create(ctx, 100, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	open := func() []byte {
		_, msgs := c.send(request{cmd: 5, body: createRequest("m.txt")})
		return msgs[0][64+64 : 64+80]
	}
	h1, h2 := open(), open()
	const ex, now, unlock = 0x2, 0x10, 0x4
	steps := []struct {
		name   string
		handle []byte
		elems  [][3]uint64
		want   uint32
	}{
		{"h2 takes 20..30", h2, [][3]uint64{{20, 10, ex | now}}, 0},
		{"h1: 0..10 and 20..30, the second refused", h1, [][3]uint64{{0, 10, ex | now}, {20, 10, ex | now}}, 0xC0000055},
		{"0..10 was released with it", h2, [][3]uint64{{0, 10, ex | now}}, 0},
		{"a lock then an unlock", h1, [][3]uint64{{40, 1, ex | now}, {40, 1, unlock}}, 0xC000000D},
		{"two locks, one that would wait", h1, [][3]uint64{{50, 1, ex | now}, {60, 1, ex}}, 0xC000000D},
		{"h2 unlocks 0..10 then 70..80 it never took", h2, [][3]uint64{{0, 10, unlock}, {70, 10, unlock}}, 0xC000007E},
		{"0..10 was unlocked", h1, [][3]uint64{{0, 10, ex | now}}, 0},
	}
	for _, s := range steps {
		if st, _ := c.send(request{cmd: 10, body: lockRequests(s.handle, s.elems...)}); st[0] != s.want {
			t.Fatalf("%s: %#x, want %#x", s.name, st[0], s.want)
		}
	}
}

func writeRequest(fileID []byte, off uint64, data []byte) []byte {
	b := make([]byte, 48)
	le.PutUint16(b, 49)
	le.PutUint16(b[2:], 64+48)
	le.PutUint32(b[4:], uint32(len(data)))
	le.PutUint64(b[8:], off)
	copy(b[16:], fileID)
	return append(b, data...)
}

// TestIOOffsets: offsets past 2^63-1 are invalid, writes may not end past
// NTFS's largest file size, an all-ones offset appends only for
// append-only opens, and zero-length reads and writes succeed wherever
// their offset is valid (smbtorture's smb2.rw.invalid, Windows' answers).
func TestIOOffsets(t *testing.T) {
	in, sh := startWithShare(t)
	if _, err := sh.NewRootDirectoryClient().NewFileClient("o.txt").Create(ctx, 10, nil); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, in.SMBAddr)
	st, msgs := c.send(request{cmd: 5, body: openRequest("o.txt", 0x3, 7, 1, 0)})
	if st[0] != 0 {
		t.Fatalf("open: %#x", st[0])
	}
	h := msgs[0][64+64 : 64+80]
	const maxInt64, maxFile = 1<<63 - 1, 0xfffffff0000
	const read, write = 8, 9
	steps := []struct {
		name string
		cmd  uint16
		body []byte
		want uint32
	}{
		{"read 0 bytes at 2^63-1", read, readRequest(h, 0), 0},
		{"write 0 bytes at 2^63-1", write, writeRequest(h, maxInt64, nil), 0},
		{"write 1 byte at 2^63-1", write, writeRequest(h, maxInt64, []byte{1}), 0xC000000D},
		{"write 0 bytes at 2^63", write, writeRequest(h, maxInt64+1, nil), 0xC000000D},
		{"write at the all-ones offset of a read/write open", write, writeRequest(h, ^uint64(0), []byte{1}), 0xC000000D},
		{"write 1 byte at the largest file size", write, writeRequest(h, maxFile, []byte{1}), 0xC000000D},
		{"write 0 bytes at the largest file size", write, writeRequest(h, maxFile, nil), 0},
	}
	le.PutUint64(steps[0].body[8:], maxInt64)
	for _, s := range steps {
		if st, _ := c.send(request{cmd: s.cmd, body: s.body}); st[0] != s.want {
			t.Errorf("%s: %#x, want %#x", s.name, st[0], s.want)
		}
	}
}
