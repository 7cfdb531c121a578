package smb_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
)

// createFor is a CREATE of name opening it for read and write, creating it
// if missing (FILE_OPEN_IF).
func createFor(name string) []byte { return openRequest(name, 0x3, 7, 3, 0) }

// TestSigningRequiredRefusesUnsigned: on a 3.0 session whose client
// required signing, an unsigned CREATE or WRITE (alone, or as an element
// of a compound) is refused with STATUS_ACCESS_DENIED and changes nothing
// (MS-SMB2 3.3.5.2.4); signed requests work.
func TestSigningRequiredRefusesUnsigned(t *testing.T) {
	in, sh := startWithShare(t)
	w := dialWire(t, in.SMBAddr)
	w.negotiate(0x0300)
	if st, _ := w.logon(2); st != stOK {
		t.Fatalf("logon: %#x", st)
	}
	if st := w.treeConnect("share"); st != stOK {
		t.Fatalf("tree connect: %#x", st)
	}
	unsigned := func(cmd uint16, body []byte) part { p := w.req(cmd, body); p.signed = false; return p }
	if st, _ := w.call(unsigned(opCreate, createFor("u.txt"))); st[0] != stAccessDenied {
		t.Fatalf("unsigned CREATE: %#x, want ACCESS_DENIED", st[0])
	}
	fc := sh.NewRootDirectoryClient().NewFileClient("u.txt")
	if _, err := fc.GetProperties(ctx, nil); !fileerror.HasCode(err, fileerror.ResourceNotFound) {
		t.Fatalf("REST sees the file an unsigned CREATE named: %v", err)
	}
	st, msg := w.do(opCreate, createFor("u.txt"))
	if st != stOK {
		t.Fatalf("signed CREATE: %#x", st)
	}
	h := msg[64+64 : 64+80]
	if st, _ := w.call(unsigned(opWrite, writeRequest(h, 0, []byte("forged")))); st[0] != stAccessDenied {
		t.Fatalf("unsigned WRITE: %#x, want ACCESS_DENIED", st[0])
	}
	// A compound whose second element is unsigned: that element is refused.
	sts, _ := w.call(w.req(opWrite, writeRequest(h, 0, []byte("signed"))), unsigned(opWrite, writeRequest(h, 6, []byte("forged"))))
	if len(sts) != 2 || sts[0] != stOK || sts[1] != stAccessDenied {
		t.Fatalf("signed then unsigned WRITE in one compound: %#x, want [0 ACCESS_DENIED]", sts)
	}
	props, err := fc.GetProperties(ctx, nil)
	if err != nil || *props.ContentLength != 6 {
		t.Fatalf("REST after the refused writes: %v, size %v, want 6", err, props.ContentLength)
	}
}

// TestBadSignatureRefused: a request flagged signed whose signature is
// wrong is refused with STATUS_ACCESS_DENIED, whether or not the session
// requires signing; an ECHO naming the session too.
func TestBadSignatureRefused(t *testing.T) {
	for _, secMode := range []byte{0, 2} {
		in, _ := startWithShare(t)
		w := dialWire(t, in.SMBAddr)
		w.negotiate(0x0210)
		if st, _ := w.logon(secMode); st != stOK {
			t.Fatalf("logon: %#x", st)
		}
		p := w.req(opTreeConnect, nil)
		p.body = treeConnectBody("share")
		p.badSig = true
		if st, _ := w.call(p); st[0] != stAccessDenied {
			t.Fatalf("SecurityMode %d: TREE_CONNECT with a bad signature: %#x, want ACCESS_DENIED", secMode, st[0])
		}
		if st := w.treeConnect("share"); st != stOK {
			t.Fatalf("SecurityMode %d: a well-signed TREE_CONNECT after it: %#x", secMode, st)
		}
		p = w.req(opEcho, echo)
		p.badSig = true
		if st, _ := w.call(p); st[0] != stAccessDenied {
			t.Fatalf("SecurityMode %d: ECHO with a bad signature: %#x, want ACCESS_DENIED", secMode, st[0])
		}
	}
}

func treeConnectBody(share string) []byte {
	path := u16(`\\127.0.0.1\` + share)
	b := make([]byte, 8)
	le.PutUint16(b, 9)
	le.PutUint16(b[4:], 64+8)
	le.PutUint16(b[6:], uint16(len(path)))
	return append(b, path...)
}
