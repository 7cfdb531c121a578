package smb

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/storage"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/service/file"
)

// FuzzFrame feeds arbitrary frames to a fresh connection and to one that
// has negotiated 3.1.1 and started a logon: no input may panic.
func FuzzFrame(f *testing.F) {
	neg := response(header{command: cmdNegotiate}, 0, 1, negotiate311Body())
	f.Add(neg)
	f.Add(append([]byte("\xFFSMB\x72"), []byte("\x02SMB 2.???\x00")...))
	// The NEGOTIATE took MessageId 0 and granted 1: the next is 1.
	f.Add(response(header{command: cmdSessionSetup, messageID: 1}, 0, 1, setupRequestBody(negTokenInit())))
	f.Add(response(header{command: cmdCreate, flags: flagRelated, messageID: 1}, 0, 1, make([]byte, 60)))
	f.Add(response(header{command: cmdQueryDirectory, sessionID: 1, treeID: 1, messageID: 1}, 0, 1, make([]byte, 40)))
	f.Add(response(header{command: cmdRead, sessionID: 1, treeID: 1, messageID: 1, creditCharge: 2}, 0, 1, make([]byte, 49)))
	st, err := storage.Open(context.Background(), "memory:", storage.Options{Inline: true})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Store.Close()
	srv := New(file.NewSMBFS(st.Store, st.Extents, nil, nil), nil, nil, auth.DevAccounts(), nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if c := newConn(srv, nil); !negotiates(c, neg) {
		f.Fatal("the seed NEGOTIATE does not negotiate 3.1.1")
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		c := newConn(srv, a)
		c.handleFrame(frame)
		c = newConn(srv, a)
		c.handleFrame(neg)
		c.handleFrame(frame)
		// and as a logged-on session with a tree and an open
		c = newConn(srv, a)
		c.handleFrame(neg)
		o := &open{id: 7, path: "f", dir: true, access: accAll}
		c.sessions[1] = &session{id: 1, valid: true, account: auth.DevAccountName,
			trees: map[uint32]*tree{1: {id: 1, share: "share", opens: map[uint64]*open{7: o}}}}
		c.handleFrame(frame)
	})
}

func negotiates(c *conn, neg []byte) bool {
	_, ok := c.handleFrame(neg)
	return ok && c.negotiated && c.dialect == dialect311
}

// negotiate311Body is a NEGOTIATE body offering 3.1.1 with its required
// PREAUTH_INTEGRITY_CAPABILITIES context (SHA-512, a 32-byte salt).
func negotiate311Body() []byte {
	b := append(newBuf(36).u16(0, 36).u16(2, 1), 0x11, 0x03, 0, 0) // padded to 8 from the header
	buf(b).u32(28, headerSize+40).u16(32, 1)
	data := append(newBuf(6).u16(0, 1).u16(2, 32).u16(4, hashSHA512), make([]byte, 32)...)
	return append(append(b, newBuf(8).u16(0, negContextPreauth).u16(2, uint16(len(data)))...), data...)
}

func setupRequestBody(token []byte) []byte {
	b := newBuf(24).u16(0, 25).u16(12, headerSize+24).u16(14, uint16(len(token)))
	return append(b, token...)
}

// FuzzNTLM feeds arbitrary security buffers to the NTLM server.
func FuzzNTLM(f *testing.F) {
	f.Add(negTokenResp(negAcceptIncomplete, append([]byte("NTLMSSP\x00\x03\x00\x00\x00"), make([]byte, 80)...), false))
	f.Fuzz(func(t *testing.T, buf []byte) {
		tok, _ := ntlmToken(buf)
		n := &ntlmServer{}
		_, _ = n.challengeFor(tok, fromFiletime(1))
		n.challenge = []byte{1}
		_, _ = n.authenticate(tok, func(string) []string { return []string{"k"} })
	})
}
