package smb

import (
	"bytes"
	"crypto/rand"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/service/file"
)

// session is one logged-on (or logging-on) user of a connection.
type session struct {
	id      uint64
	ntlm    ntlmServer
	spnego  bool
	mechs   []byte // the client's SPNEGO MechTypeList, for mechListMIC
	preauth []byte
	account string
	signer  signer
	sealer  *sealer // nil unless the connection negotiated a cipher
	valid   bool
	trees   map[uint32]*tree
	nextTID uint32

	// signingRequired refuses unsigned requests; encryptData refuses
	// unencrypted ones (policy.go).
	signingRequired bool
	encryptData     bool
}

// tree is a connected share.
type tree struct {
	id    uint32
	share string
	ipc   bool
	opens map[uint64]*open
}

// smb1Negotiate answers an SMB1 multi-protocol NEGOTIATE that offers
// "SMB 2.???" with an SMB2 NEGOTIATE response for the wildcard dialect;
// the client then negotiates again over SMB2.
func (c *conn) smb1Negotiate(msg []byte) ([]byte, bool) {
	if c.negotiated || !bytes.Contains(msg, []byte("SMB 2.???")) {
		return nil, false
	}
	// It stands for MessageId 0 (MS-SMB2 3.3.5.2.3).
	if !c.seq.consume(0, 1) {
		return nil, false
	}
	h := header{command: cmdNegotiate}
	return response(h, statusOK, c.credits(h), c.negotiateBody(dialectWildcard, nil)), true
}

func (c *conn) negotiate(r *request) (*reply, bool) {
	if c.negotiated || len(r.body) < 36 {
		return nil, false
	}
	fail := func(status uint32) (*reply, bool) {
		return &reply{msg: response(r.h, status, c.credits(r.h), errorBody())}, true
	}
	b := r.body
	count := int(le.Uint16(b[2:]))
	// MS-SMB2 3.3.5.4; a signed NEGOTIATE is invalid too (3.3.5.2.4).
	if count == 0 || len(b) < 36+2*count || r.h.flags&flagSigned != 0 {
		return fail(statusInvalidParameter)
	}
	dialects := make([]uint16, count)
	for i := range dialects {
		dialects[i] = le.Uint16(b[36+2*i:])
	}
	dialect := bestDialect(dialects)
	if dialect == 0 {
		return fail(statusNotSupported)
	}
	var contexts []negContext
	if dialect == dialect311 {
		contexts = negotiateContexts(r.msg, b)
		if st := checkContexts(contexts); st != statusOK {
			return fail(st)
		}
	}
	c.clientSecMode, c.clientCaps = le.Uint16(b[4:]), le.Uint32(b[8:])
	copy(c.clientGUID[:], b[12:28])
	c.clientDialects, c.dialect, c.negotiated = dialects, dialect, true
	var out []byte
	if c.dialect == dialect311 {
		salt := make([]byte, 32)
		_, _ = rand.Read(salt)
		data := newBuf(6).u16(0, 1).u16(2, 32).u16(4, hashSHA512) // one algorithm
		data = append(data, salt...)
		out = append(newBuf(8).u16(0, negContextPreauth).u16(2, uint16(len(data))), data...)
		for _, cipher := range clientCiphers(contexts) {
			if cipher == cipherAES128GCM {
				c.cipher = cipher
			}
		}
		if c.cipher != 0 {
			out = append(align8(out), encryptionContext(c.cipher)...)
		}
	}
	resp := response(r.h, statusOK, c.credits(r.h), c.negotiateBody(c.dialect, out))
	// Multi-credit requests from here on: 2.1 and later over TCP
	// (MS-SMB2 3.3.5.4, Connection.SupportsMultiCredit).
	c.multiCredit = c.dialect >= dialect210
	if c.dialect == dialect311 {
		c.preauth = preauthFold(preauthFold(make([]byte, 64), r.msg), resp)
	}
	return &reply{msg: resp}, true
}

// bestDialect is the best of the server's dialects the client offers, 0
// for none.
func bestDialect(client []uint16) uint16 {
	for _, d := range offered {
		for _, cd := range client {
			if d == cd {
				return d
			}
		}
	}
	return 0
}

// negotiateBody is the NEGOTIATE response body: signing enabled (and
// required when the policy says so), LARGE_MTU only, 8 MiB transfers and
// an SPNEGO NTLM offer.
func (c *conn) negotiateBody(dialect uint16, contexts []byte) []byte {
	now := c.srv.clock.Now()
	b := newBuf(64).u16(0, 65).u16(2, c.srv.Policy.securityMode()).u16(4, dialect).u32(24, 0x4).
		u32(28, maxIO).u32(32, maxIO).u32(36, maxIO).ft(40, now).ft(48, c.srv.started)
	if dialect < dialect210 && dialect != dialectWildcard {
		b.u32(28, 65536).u32(32, 65536).u32(36, 65536)
	}
	copy(b[8:24], c.srv.guid[:])
	sec := negTokenInit()
	b.u16(56, headerSize+64).u16(58, uint16(len(sec)))
	out := buf(align8(append([]byte(b), sec...)))
	if contexts != nil {
		count := uint16(1)
		if c.cipher != 0 {
			count = 2
		}
		out.u16(6, count).u32(60, uint32(headerSize+len(out)))
		out = append(out, contexts...)
	}
	return out
}

func (c *conn) sessionSetup(r *request) (*reply, bool) {
	b := r.body
	if len(b) < 24 {
		return c.errorReply(r, statusInvalidParameter), true
	}
	if c.srv.Policy.RequireEncryption && c.cipher == 0 {
		// The client cannot encrypt (MS-SMB2 3.3.5.5: RejectUnencryptedAccess).
		return c.errorReply(r, statusAccessDenied), true
	}
	token := slice(r.msg, int(le.Uint16(b[12:])), int(le.Uint16(b[14:])))
	s := c.pendingSessions[r.h.sessionID]
	if s == nil {
		if r.h.sessionID != 0 {
			return c.errorReply(r, statusUserSessionDeleted), true
		}
		if len(c.pendingSessions) >= maxPendingSessions {
			return c.errorReply(r, statusInsufficientResources), true
		}
		s = &session{trees: map[uint32]*tree{}, preauth: c.preauth}
		var id [8]byte
		_, _ = rand.Read(id[:])
		s.id = le.Uint64(id[:]) >> 1
		c.pendingSessions[s.id] = s
	}
	r.h.sessionID = s.id
	if c.dialect == dialect311 {
		s.preauth = preauthFold(s.preauth, r.msg)
	}
	ntlmMsg, spnego := ntlmToken(token)
	if len(ntlmMsg) < 12 {
		delete(c.pendingSessions, s.id)
		return c.errorReply(r, statusLogonFailure), true
	}
	if le.Uint32(ntlmMsg[8:]) == 1 {
		s.spnego, s.mechs = spnego, mechTypes(token)
		chal, err := s.ntlm.challengeFor(ntlmMsg, c.srv.clock.Now())
		if err != nil {
			delete(c.pendingSessions, s.id)
			return c.errorReply(r, statusLogonFailure), true
		}
		if spnego {
			chal = negTokenResp(negAcceptIncomplete, chal, true)
		}
		resp := response(r.h, statusMoreProcessing, c.credits(r.h), setupBody(chal))
		if c.dialect == dialect311 {
			s.preauth = preauthFold(s.preauth, resp)
		}
		return &reply{msg: resp}, true
	}
	delete(c.pendingSessions, s.id)
	who, err := s.ntlm.authenticate(ntlmMsg, c.passwords)
	if err != nil {
		return c.errorReply(r, statusLogonFailure), true
	}
	s.account = c.accountName(who.user)
	s.signer = newSigner(c.dialect, who.sessionKey, s.preauth)
	if c.cipher != 0 {
		if s.sealer, err = newSealer(who.sessionKey, s.preauth); err != nil {
			return c.errorReply(r, statusLogonFailure), true
		}
	}
	s.valid = true
	// Session.SigningRequired and Session.EncryptData (MS-SMB2 3.3.5.5.3).
	s.signingRequired = b[3]&signingRequired != 0 || c.srv.Policy.RequireSigning
	s.encryptData = c.srv.Policy.RequireEncryption
	c.sessions[s.id] = s
	c.loggedOn = true
	var out []byte
	switch {
	case s.spnego && s.mechs != nil:
		out = negTokenRespMIC(serverSignature(who, s.mechs))
	case s.spnego:
		out = negTokenResp(negAcceptCompleted, nil, false)
	}
	body := setupBody(out)
	if s.encryptData {
		le.PutUint16(body[2:], sessionFlagEncryptData)
	}
	return &reply{msg: response(r.h, statusOK, c.credits(r.h), body), sign: &s.signer}, true
}

func setupBody(token []byte) []byte {
	b := newBuf(8).u16(0, 9).u16(4, headerSize+8).u16(6, uint16(len(token)))
	if len(token) == 0 {
		b.u16(4, 0)
		return append(b, 0)
	}
	return append(b, token...)
}

// accountName maps a logon user to the account's name: exact, else case-
// insensitive.
func (c *conn) accountName(user string) string {
	if _, ok := c.srv.accounts.Lookup(user); ok {
		return user
	}
	for _, n := range c.srv.accounts.Names() {
		if strings.EqualFold(n, user) {
			return n
		}
	}
	return user
}

// passwords are the base64 keys of the account a user names.
func (c *conn) passwords(user string) []string {
	acc, ok := c.srv.accounts.Lookup(c.accountName(user))
	if !ok {
		return nil
	}
	return keyPasswords(acc.Keys)
}

func (c *conn) treeConnect(r *request) (uint32, []byte) {
	b := r.body
	if len(b) < 8 {
		return statusInvalidParameter, nil
	}
	raw := slice(r.msg, int(le.Uint16(b[4:])), int(le.Uint16(b[6:])))
	if raw == nil {
		return statusInvalidParameter, nil
	}
	p := fromUTF16(raw)
	name := p[strings.LastIndex(p, `\`)+1:]
	t := &tree{share: name, opens: map[uint64]*open{}}
	resp := newBuf(16).u16(0, 16)
	if strings.EqualFold(name, "IPC$") {
		t.ipc = true
		resp[2] = 2
		resp.u32(12, 0x1F00A9)
	} else {
		found, err := c.srv.fs.Shares(c.ctx(), r.sess.account, name)
		if err != nil || !found {
			return statusBadNetworkName, nil
		}
		resp[2] = 1
		resp.u32(12, 0x1F01FF)
	}
	r.sess.nextTID++
	t.id = r.sess.nextTID
	r.sess.trees[t.id] = t
	r.h.treeID = t.id
	return statusOK, resp
}

func (c *conn) treeDisconnect(s *session, t *tree) {
	for _, o := range t.opens {
		c.closeOpen(t, o)
	}
	delete(s.trees, t.id)
}

func (c *conn) logoff(s *session) {
	for _, t := range s.trees {
		c.treeDisconnect(s, t)
	}
}

// FSCTL codes.
const (
	fsctlValidateNegotiate   = 0x00140204
	fsctlDFSReferrals        = 0x00060194
	fsctlPipeTransceive      = 0x0011C017
	fsctlCreateOrGetObjectID = 0x000900C0
	objectIDBufferSize       = 64
)

func (c *conn) ioctl(r *request) (uint32, []byte) {
	b := r.body
	if len(b) < 56 {
		return statusInvalidParameter, nil
	}
	code := le.Uint32(b[4:])
	switch code {
	case fsctlValidateNegotiate:
		if c.dialect == dialect311 {
			return statusAccessDenied, nil
		}
		in := slice(r.msg, int(le.Uint32(b[24:])), int(le.Uint32(b[28:])))
		if !c.negotiateMatches(in) {
			return statusAccessDenied, nil
		}
		out := newBuf(24).u32(0, 0x4).u16(20, c.srv.Policy.securityMode()).u16(22, c.dialect)
		copy(out[4:20], c.srv.guid[:])
		return statusOK, ioctlBody(code, b[8:24], out)
	case fsctlDFSReferrals:
		return statusNotFound, nil
	}
	// The other FSCTLs act on an open: its FileId is checked first.
	o, st := c.openOf(r, 8)
	if st != statusOK {
		return st, nil
	}
	if code == fsctlCreateOrGetObjectID {
		if le.Uint32(b[44:]) < objectIDBufferSize {
			return statusInvalidParameter, nil
		}
		return statusOK, ioctlBody(code, b[8:24], objectID(o.fileID, c.srv.guid))
	}
	return statusNotSupported, nil
}

// objectID is the FILE_OBJECTID_BUFFER of a file (MS-FSCC 2.1.3): the
// object id is the file's id, stable across renames and nodes, and the
// server's GUID stands for the volume.
func objectID(fileID uint64, volume [16]byte) []byte {
	b := newBuf(objectIDBufferSize).u64(0, fileID)
	copy(b[16:32], volume[:])
	copy(b[32:48], b[0:16])
	return b
}

func ioctlBody(code uint32, fileID []byte, out []byte) []byte {
	b := newBuf(48).u16(0, 49).u32(4, code).u32(32, headerSize+48).u32(36, uint32(len(out)))
	copy(b[8:24], fileID)
	return append(b, out...)
}

// negotiateMatches compares VALIDATE_NEGOTIATE_INFO input with what the
// connection negotiated.
func (c *conn) negotiateMatches(in []byte) bool {
	if len(in) < 24 {
		return false
	}
	n := int(le.Uint16(in[22:]))
	if len(in) < 24+2*n || n != len(c.clientDialects) || le.Uint32(in) != c.clientCaps ||
		!bytes.Equal(in[4:20], c.clientGUID[:]) || le.Uint16(in[20:]) != c.clientSecMode {
		return false
	}
	for i := 0; i < n; i++ {
		if le.Uint16(in[24+2*i:]) != c.clientDialects[i] {
			return false
		}
	}
	return true
}

var _ = file.ErrNotFound
