package smb_test

import (
	"crypto/hmac"
	"crypto/md5"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	//lint:ignore SA1019 NTLM's NT hash is defined over MD4
	"golang.org/x/crypto/md4"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/service/smb"
)

// wire is a raw SMB2 client whose every header field a test chooses:
// MessageId, CreditCharge, and whether (and how well) a request is signed.
type wire struct {
	t          *testing.T
	nc         net.Conn
	dialect    uint16
	sessionID  uint64
	treeID     uint32
	sessionKey []byte
	next       uint64 // the next MessageId
}

// part is one request of a frame.
type part struct {
	cmd     uint16
	body    []byte
	id      uint64
	charge  uint16
	credits uint16 // CreditRequest
	signed  bool
	badSig  bool // signed with a wrong signature
	related bool
}

// Commands the tests send.
const (
	opNegotiate    = 0
	opSessionSetup = 1
	opTreeConnect  = 3
	opCreate       = 5
	opRead         = 8
	opWrite        = 9
	opCancel       = 12
	opEcho         = 13
)

// NTSTATUS values the tests expect.
const (
	stOK               = 0
	stMoreProcessing   = 0xC0000016
	stInvalidParameter = 0xC000000D
	stAccessDenied     = 0xC0000022
)

func dialWire(t *testing.T, addr string) *wire {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &wire{t: t, nc: nc}
}

// frame builds a chain: each request padded to 8 bytes and linked by
// NextCommand before it is signed, as MS-SMB2 3.1.4.1 signs compounds.
func (w *wire) frame(parts ...part) []byte {
	var out []byte
	for i, p := range parts {
		h := make([]byte, 64)
		copy(h, "\xFESMB")
		le.PutUint16(h[4:], 64)
		le.PutUint16(h[6:], p.charge)
		le.PutUint16(h[12:], p.cmd)
		le.PutUint16(h[14:], p.credits)
		if p.related {
			le.PutUint32(h[16:], 0x4)
		}
		le.PutUint64(h[24:], p.id)
		le.PutUint32(h[36:], w.treeID)
		le.PutUint64(h[40:], w.sessionID)
		msg := append(h, p.body...)
		if i < len(parts)-1 {
			for len(msg)%8 != 0 {
				msg = append(msg, 0)
			}
			le.PutUint32(msg[20:], uint32(len(msg)))
		}
		if p.signed || p.badSig {
			smb.SignMessage(w.dialect, w.sessionKey, msg)
		}
		if p.badSig {
			msg[50] ^= 0xFF
		}
		out = append(out, msg...)
	}
	return out
}

// write sends one frame of parts.
func (w *wire) write(parts ...part) {
	w.t.Helper()
	f := w.frame(parts...)
	if _, err := w.nc.Write(append([]byte{0, byte(len(f) >> 16), byte(len(f) >> 8), byte(len(f))}, f...)); err != nil {
		w.t.Fatal(err)
	}
}

// read returns the next frame's messages, or the read error (io.EOF once
// the server has closed the connection). The deadline only turns a server
// that neither answers nor closes into a failure instead of a hang.
func (w *wire) read() ([][]byte, error) {
	_ = w.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var hdr [4]byte
	if _, err := io.ReadFull(w.nc, hdr[:]); err != nil {
		return nil, err
	}
	resp := make([]byte, int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3]))
	if _, err := io.ReadFull(w.nc, resp); err != nil {
		return nil, err
	}
	var msgs [][]byte
	for {
		next := le.Uint32(resp[20:])
		if next == 0 {
			return append(msgs, resp), nil
		}
		msgs, resp = append(msgs, resp[:next]), resp[next:]
	}
}

// call sends parts as one frame and returns each response's status and
// message; it fails the test if the connection ends.
func (w *wire) call(parts ...part) ([]uint32, [][]byte) {
	w.t.Helper()
	w.write(parts...)
	msgs, err := w.read()
	if err != nil {
		w.t.Fatalf("no response: %v", err)
	}
	var st []uint32
	for _, m := range msgs {
		st = append(st, le.Uint32(m[8:]))
	}
	return st, msgs
}

// req is the next request in sequence: charge 1, asking for 8 credits,
// signed once the session has a key.
func (w *wire) req(cmd uint16, body []byte) part {
	p := part{cmd: cmd, body: body, id: w.next, charge: 1, credits: 8, signed: w.sessionKey != nil}
	w.next++
	return p
}

// do sends one request in sequence and returns its status and response.
func (w *wire) do(cmd uint16, body []byte) (uint32, []byte) {
	w.t.Helper()
	st, msgs := w.call(w.req(cmd, body))
	return st[0], msgs[0]
}

// closed reports whether the server ended the connection instead of
// answering.
func (w *wire) closed() bool {
	w.t.Helper()
	msgs, err := w.read()
	if err == nil {
		w.t.Logf("answered with status %#x", le.Uint32(msgs[0][8:]))
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		w.t.Fatal("the server neither answered nor closed the connection")
	}
	return true
}

// negotiateBody is a NEGOTIATE offering dialects, with signing enabled
// and the given 3.1.1 negotiate contexts.
func negotiateBody(dialects []uint16, contexts ...[]byte) []byte {
	b := make([]byte, 36)
	le.PutUint16(b, 36)
	le.PutUint16(b[2:], uint16(len(dialects)))
	le.PutUint16(b[4:], 1)
	for _, d := range dialects {
		b = le.AppendUint16(b, d)
	}
	if len(contexts) == 0 {
		return b
	}
	for (64+len(b))%8 != 0 {
		b = append(b, 0)
	}
	le.PutUint32(b[28:], uint32(64+len(b)))
	le.PutUint16(b[32:], uint16(len(contexts)))
	for i, c := range contexts {
		b = append(b, c...)
		for i < len(contexts)-1 && (64+len(b))%8 != 0 {
			b = append(b, 0)
		}
	}
	return b
}

// negContext is a negotiate context of type typ holding data.
func negContext(typ uint16, data []byte) []byte {
	b := make([]byte, 8)
	le.PutUint16(b, typ)
	le.PutUint16(b[2:], uint16(len(data)))
	return append(b, data...)
}

// preauthContext names hashes (1 is SHA-512) with a 32-byte salt.
func preauthContext(hashes ...uint16) []byte {
	d := make([]byte, 4)
	le.PutUint16(d, uint16(len(hashes)))
	le.PutUint16(d[2:], 32)
	for _, h := range hashes {
		d = le.AppendUint16(d, h)
	}
	return negContext(1, append(d, make([]byte, 32)...))
}

// gcmContext offers AES-128-GCM.
func gcmContext() []byte { return negContext(2, []byte{1, 0, 2, 0}) }

// negotiate negotiates dialect (with contexts for 3.1.1) and fails the
// test unless it succeeds.
func (w *wire) negotiate(dialect uint16, contexts ...[]byte) {
	w.t.Helper()
	if st, _ := w.do(opNegotiate, negotiateBody([]uint16{dialect}, contexts...)); st != stOK {
		w.t.Fatalf("negotiate %#x: %#x", dialect, st)
	}
	w.dialect = dialect
}

// logon runs a raw NTLMv2 logon with the SESSION_SETUP SecurityMode
// secMode (2: the client requires signing) and returns the final status
// and response. On success the session's requests are signed from then on.
func (w *wire) logon(secMode byte) (uint32, []byte) {
	w.t.Helper()
	neg := append([]byte("NTLMSSP\x00\x01\x00\x00\x00"), 0x15, 0x82, 0x08, 0x60)
	first := setupRequest(append(neg, make([]byte, 16)...))
	first[3] = secMode
	st, msg := w.do(opSessionSetup, first)
	if st != stMoreProcessing {
		return st, msg
	}
	w.sessionID = le.Uint64(msg[40:])
	chal := msg[le.Uint16(msg[68:]):][:le.Uint16(msg[70:])]
	authMsg, key := ntlmAuthenticate(chal)
	final := setupRequest(authMsg)
	final[3] = secMode
	st, msg = w.do(opSessionSetup, final)
	if st == stOK {
		w.sessionKey = key
	}
	return st, msg
}

// ntlmAuthenticate answers an NTLM CHALLENGE for the development account
// with NTLMv2 and no key exchange, returning the AUTHENTICATE message and
// the session key (MS-NLMP 3.3.2).
func ntlmAuthenticate(chal []byte) (msg, sessionKey []byte) {
	serverChallenge := chal[24:32]
	info := chal[le.Uint32(chal[44:]):][:le.Uint16(chal[40:])]
	h := md4.New()
	h.Write(u16(auth.DevAccountKey))
	m := hmac.New(md5.New, h.Sum(nil))
	m.Write(u16(strings.ToUpper(auth.DevAccountName) + "WIRE"))
	key := m.Sum(nil)
	blob := append([]byte{1, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 0, 0}, info...)
	blob = append(blob, 0, 0, 0, 0)
	m = hmac.New(md5.New, key)
	m.Write(serverChallenge)
	m.Write(blob)
	proof := m.Sum(nil)
	m = hmac.New(md5.New, key)
	m.Write(proof)
	sessionKey = m.Sum(nil)
	msg = make([]byte, 64)
	copy(msg, "NTLMSSP\x00\x03")
	field := func(at int, v []byte) {
		le.PutUint16(msg[at:], uint16(len(v)))
		le.PutUint16(msg[at+2:], uint16(len(v)))
		le.PutUint32(msg[at+4:], uint32(len(msg)))
		msg = append(msg, v...)
	}
	field(12, nil)
	field(20, append(proof, blob...))
	field(28, u16("WIRE"))
	field(36, u16(auth.DevAccountName))
	field(44, nil)
	field(52, nil)
	le.PutUint32(msg[60:], 0x20088215) // no KEY_EXCH: the session key is the base key
	return msg, sessionKey
}

// treeConnect connects share and returns the status.
func (w *wire) treeConnect(share string) uint32 {
	w.t.Helper()
	path := u16(`\\127.0.0.1\` + share)
	b := make([]byte, 8)
	le.PutUint16(b, 9)
	le.PutUint16(b[4:], 64+8)
	le.PutUint16(b[6:], uint16(len(path)))
	st, msg := w.do(opTreeConnect, append(b, path...))
	if st == stOK {
		w.treeID = le.Uint32(msg[36:])
	}
	return st
}
