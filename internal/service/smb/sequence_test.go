package smb_test

import (
	"testing"
)

// echo is an ECHO request body.
var echo = []byte{4, 0, 0, 0}

// TestMessageIdWindow: MessageIds must fall inside the window the granted
// credits open and are never used twice (MS-SMB2 3.3.1.1, 3.3.5.2.3): a
// reused MessageId, MessageId 2^64-1, one past the window and a
// CreditCharge beyond the granted credits each end the connection, while
// out-of-order MessageIds inside the window, multi-credit charges within
// it and a CANCEL reusing a MessageId are served.
func TestMessageIdWindow(t *testing.T) {
	in, _ := startWithShare(t)
	// negotiated opens a 3.0 connection that asked for 10 credits: the
	// window is then MessageIds 1 to 10.
	negotiated := func() *wire {
		w := dialWire(t, in.SMBAddr)
		st, msgs := w.call(part{cmd: opNegotiate, body: negotiateBody([]uint16{0x0300}), credits: 10})
		if st[0] != stOK || le.Uint16(msgs[0][14:]) != 10 {
			t.Fatalf("negotiate: %#x, %d credits granted, want 10", st[0], le.Uint16(msgs[0][14:]))
		}
		w.dialect = 0x0300
		return w
	}
	served := func(w *wire, p part) {
		t.Helper()
		if st, _ := w.call(p); st[0] != stOK {
			t.Fatalf("ECHO MessageId %d charge %d: %#x", p.id, p.charge, st[0])
		}
	}
	refused := func(name string, w *wire, p part) {
		t.Helper()
		w.write(p)
		if !w.closed() {
			t.Errorf("%s: the connection goes on", name)
		}
	}

	w := negotiated()
	served(w, part{cmd: opEcho, body: echo, id: 10}) // the last granted; grants 1 more
	served(w, part{cmd: opEcho, body: echo, id: 1, charge: 4})
	served(w, part{cmd: opEcho, body: echo, id: 11}) // granted by the ECHO of id 10
	w.write(part{cmd: opCancel, body: echo, id: 1})  // CANCEL names a used MessageId and has no answer
	served(w, part{cmd: opEcho, body: echo, id: 5})
	refused("MessageId reused", w, part{cmd: opEcho, body: echo, id: 5})

	refused("MessageId 0 reused", negotiated(), part{cmd: opEcho, body: echo, id: 0})
	refused("MessageId 2^64-1", negotiated(), part{cmd: opEcho, body: echo, id: 1<<64 - 1})
	refused("MessageId past the window", negotiated(), part{cmd: opEcho, body: echo, id: 11})
	refused("CreditCharge 65535", negotiated(), part{cmd: opEcho, body: echo, id: 1, charge: 65535})
	refused("CreditCharge one past the window", negotiated(), part{cmd: opEcho, body: echo, id: 2, charge: 10})
	w = negotiated()
	served(w, part{cmd: opEcho, body: echo, id: 3})
	refused("a charge over a used MessageId", w, part{cmd: opEcho, body: echo, id: 1, charge: 3})
}

// TestCreditsGranted: a response grants what the request asked for and at
// least what it consumed, so a client asking for no credits (impacket)
// keeps its balance through multi-credit requests (MS-SMB2 3.3.1.2).
func TestCreditsGranted(t *testing.T) {
	in, _ := startWithShare(t)
	w := dialWire(t, in.SMBAddr)
	st, msgs := w.call(part{cmd: opNegotiate, body: negotiateBody([]uint16{0x0300}), credits: 4})
	if st[0] != stOK || le.Uint16(msgs[0][14:]) != 4 {
		t.Fatalf("negotiate: %#x, %d credits", st[0], le.Uint16(msgs[0][14:]))
	}
	for _, c := range []struct {
		id              uint64
		charge, ask, to uint16
	}{{1, 4, 0, 4}, {5, 4, 1, 4}, {9, 1, 0, 1}, {10, 2, 9, 9}} {
		st, msgs := w.call(part{cmd: opEcho, body: echo, id: c.id, charge: c.charge, credits: c.ask})
		if st[0] != stOK || le.Uint16(msgs[0][14:]) != c.to {
			t.Fatalf("ECHO %d charging %d asking %d: %#x, granted %d, want %d", c.id, c.charge, c.ask, st[0], le.Uint16(msgs[0][14:]), c.to)
		}
	}
}

// TestCreditChargeCoversPayload: a multi-credit READ must be charged a
// credit per 64 KiB it asks for (MS-SMB2 3.3.5.2.5).
func TestCreditChargeCoversPayload(t *testing.T) {
	in, _ := startWithShare(t)
	w := dialWire(t, in.SMBAddr)
	w.negotiate(0x0300)
	if st, _ := w.logon(0); st != stOK {
		t.Fatalf("logon: %#x", st)
	}
	if st := w.treeConnect("share"); st != stOK {
		t.Fatalf("tree connect: %#x", st)
	}
	st, msg := w.do(opCreate, createFor("big.txt"))
	if st != stOK {
		t.Fatalf("create: %#x", st)
	}
	h := msg[64+64 : 64+80]
	read := func(charge uint16) uint32 {
		p := w.req(opRead, readRequest(h, 128<<10))
		p.charge = charge
		w.next += uint64(max(charge, 1)) - 1
		st, _ := w.call(p)
		return st[0]
	}
	if st := read(1); st != stInvalidParameter {
		t.Fatalf("128 KiB READ charged 1: %#x, want INVALID_PARAMETER", st)
	}
	if st := read(0); st != stInvalidParameter {
		t.Fatalf("128 KiB READ charged 0: %#x, want INVALID_PARAMETER", st)
	}
	if st := read(2); st != 0xC0000011 { // END_OF_FILE: the file is empty
		t.Fatalf("128 KiB READ charged 2: %#x, want END_OF_FILE", st)
	}
}

// TestNegotiate311NeedsPreauth: a 3.1.1 NEGOTIATE must carry exactly one
// PREAUTH_INTEGRITY_CAPABILITIES context naming SHA-512 (MS-SMB2 3.3.5.4);
// the connection may then negotiate again.
func TestNegotiate311NeedsPreauth(t *testing.T) {
	in, _ := startWithShare(t)
	w := dialWire(t, in.SMBAddr)
	for _, c := range []struct {
		name     string
		contexts [][]byte
		want     uint32
	}{
		{"no contexts", nil, stInvalidParameter},
		{"only an encryption context", [][]byte{gcmContext()}, stInvalidParameter},
		{"two preauth contexts", [][]byte{preauthContext(1), preauthContext(1)}, stInvalidParameter},
		{"a preauth context with no hash", [][]byte{preauthContext()}, stInvalidParameter},
		{"a preauth context without SHA-512", [][]byte{preauthContext(2)}, 0xC05D0000},
		{"a preauth context", [][]byte{preauthContext(2, 1), gcmContext()}, stOK},
	} {
		if st, _ := w.do(opNegotiate, negotiateBody([]uint16{0x0311}, c.contexts...)); st != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, st, c.want)
		}
	}
}
