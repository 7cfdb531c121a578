package smb

// Policy is what the endpoint requires of every session, beyond what each
// client asks for itself.
type Policy struct {
	// RequireSigning is MS-SMB2's global RequireMessageSigning: the
	// NEGOTIATE response says signing is required, and every session
	// refuses unsigned requests as if its client had required signing.
	RequireSigning bool
	// RequireEncryption is global EncryptData with RejectUnencryptedAccess
	// (MS-SMB2 3.3.5.5, 3.3.5.2.9): a client that negotiated no cipher is
	// refused at logon, every session is marked SMB2_SESSION_FLAG_ENCRYPT_DATA,
	// and a session's unencrypted requests are refused.
	RequireEncryption bool
}

// SecurityMode bits (MS-SMB2 2.2.4).
const (
	signingEnabled  = 0x1
	signingRequired = 0x2
)

// sessionFlagEncryptData is SMB2_SESSION_FLAG_ENCRYPT_DATA (MS-SMB2 2.2.6).
const sessionFlagEncryptData = 0x4

// securityMode is the SecurityMode of the NEGOTIATE and
// VALIDATE_NEGOTIATE_INFO responses.
func (p Policy) securityMode() uint16 {
	if p.RequireSigning {
		return signingEnabled | signingRequired
	}
	return signingEnabled
}

// authentic checks that request r comes from the holder of its session,
// r.sess (MS-SMB2 3.3.5.2.4 and 3.3.5.2.9), and answers STATUS_ACCESS_DENIED
// when it does not:
//   - a request that came encrypted was sealed with a session's key, so it
//     may act for that session only;
//   - a session that must encrypt takes nothing in plain text;
//   - a signed request must carry the session's signature;
//   - a session whose client or server required signing takes no
//     unsigned request.
//
// NEGOTIATE, SESSION_SETUP and CANCEL never come here: the first two run
// before the session's keys exist, and CANCEL is checked where it is
// served.
func (c *conn) authentic(r *request) uint32 {
	s := r.sess
	switch {
	case r.ch.sealer != nil:
		if s.id != r.ch.sealedFor {
			return statusAccessDenied
		}
	case s.encryptData:
		return statusAccessDenied
	case r.h.flags&flagSigned != 0:
		if !s.signer.verify(r.msg) {
			return statusAccessDenied
		}
	case s.signingRequired:
		return statusAccessDenied
	}
	return statusOK
}

// cancelAuthentic reports whether a CANCEL may be served. It has no
// response to carry an error, and smbd serves unsigned ones even where
// signing is required; a signed one outside encryption must carry its
// session's signature, or it is ignored.
func (c *conn) cancelAuthentic(ch *chain, h header, msg []byte) bool {
	if ch.sealer != nil || h.flags&flagSigned == 0 {
		return true
	}
	s := c.sessions[h.sessionID]
	return s != nil && s.signer.verify(msg)
}

// echo answers ECHO. One that names a session is held to that session's
// signing and encryption like any other request.
func (c *conn) echo(r *request) (uint32, []byte) {
	if s := c.sessions[r.h.sessionID]; s != nil {
		r.sess = s
		if st := c.authentic(r); st != statusOK {
			return st, nil
		}
	}
	return statusOK, newBuf(4).u16(0, 4)
}
