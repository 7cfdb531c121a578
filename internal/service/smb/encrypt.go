package smb

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// SMB 3.1.1 encryption with AES-128-GCM (MS-SMB2 3.1.4.3): offered when
// the client lists that cipher in its ENCRYPTION negotiate context, and
// used for the requests a client chooses to encrypt (smbclient -e, a
// `seal` mount), or for every request of every session when the
// endpoint's Policy requires encryption (policy.go). A response goes out
// encrypted, and unsigned, when its request came in encrypted. Other
// ciphers (AES-CCM, AES-256) and encryption on 3.0/3.0.2 (which implies
// AES-128-CCM) are not offered.

const (
	negContextPreauth    = 1
	negContextEncryption = 2
	hashSHA512           = 1
	cipherAES128GCM      = 2
	transformSize        = 52
	transformProtocol    = "\xFDSMB"
	gcmNonceSize         = 12
)

// negContext is one negotiate context of a 3.1.1 NEGOTIATE request.
type negContext struct {
	typ  uint16
	data []byte
}

// negotiateContexts returns the negotiate contexts of a 3.1.1 NEGOTIATE
// request body (offsets are from the start of msg), up to the first that
// does not fit.
func negotiateContexts(msg, body []byte) []negContext {
	off, count := int(le.Uint32(body[28:])), int(le.Uint16(body[32:]))
	var out []negContext
	for i := 0; i < count && off >= 0 && off+8 <= len(msg); i++ {
		n := int(le.Uint16(msg[off+2:]))
		data := slice(msg, off+8, n)
		if data == nil {
			break
		}
		out = append(out, negContext{typ: le.Uint16(msg[off:]), data: data})
		off += (8 + n + 7) &^ 7
	}
	return out
}

// clientCiphers returns the ciphers of the ENCRYPTION context.
func clientCiphers(contexts []negContext) []uint16 {
	var out []uint16
	for _, nc := range contexts {
		if nc.typ != negContextEncryption || len(nc.data) < 2 {
			continue
		}
		for j := 0; j < int(le.Uint16(nc.data)) && 2+2*j+2 <= len(nc.data); j++ {
			out = append(out, le.Uint16(nc.data[2+2*j:]))
		}
	}
	return out
}

// checkContexts applies MS-SMB2 3.3.5.4 to a 3.1.1 NEGOTIATE's contexts:
// exactly one PREAUTH_INTEGRITY_CAPABILITIES, naming SHA-512 (the only
// hash), and at most one ENCRYPTION_CAPABILITIES.
func checkContexts(contexts []negContext) uint32 {
	var preauth []byte
	preauths, encryptions := 0, 0
	for _, nc := range contexts {
		switch nc.typ {
		case negContextPreauth:
			preauths++
			preauth = nc.data
		case negContextEncryption:
			encryptions++
		}
	}
	if preauths != 1 || encryptions > 1 || len(preauth) < 4 {
		return statusInvalidParameter
	}
	count := int(le.Uint16(preauth))
	if count == 0 || len(preauth) < 4+2*count {
		return statusInvalidParameter
	}
	for i := 0; i < count; i++ {
		if le.Uint16(preauth[4+2*i:]) == hashSHA512 {
			return statusOK
		}
	}
	return statusNoPreauthHashOverlap
}

// encryptionContext is the ENCRYPTION negotiate context naming cipher.
func encryptionContext(cipher uint16) []byte {
	return append(newBuf(8).u16(0, negContextEncryption).u16(2, 4), newBuf(4).u16(0, 1).u16(2, cipher)...)
}

// sealer encrypts a session's responses and decrypts its requests.
type sealer struct {
	out, in cipher.AEAD // server to client, client to server
}

// newSealer derives a 3.1.1 session's cipher keys from its session key
// and pre-authentication hash.
func newSealer(sessionKey, preauth []byte) (*sealer, error) {
	out, err := gcm(kdf(sessionKey, []byte("SMBS2CCipherKey\x00"), preauth))
	if err != nil {
		return nil, err
	}
	in, err := gcm(kdf(sessionKey, []byte("SMBC2SCipherKey\x00"), preauth))
	if err != nil {
		return nil, err
	}
	return &sealer{out: out, in: in}, nil
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

var errBadTransform = errors.New("smb: malformed or unauthentic encrypted message")

// transformSession is the session id of an encrypted message.
func transformSession(msg []byte) (uint64, bool) {
	if len(msg) < transformSize || string(msg[:4]) != transformProtocol {
		return 0, false
	}
	return le.Uint64(msg[44:]), true
}

// open decrypts an encrypted message: the AEAD covers the transform
// header from the nonce on, and its tag is the header's signature.
func (s *sealer) open(msg []byte) ([]byte, error) {
	size := int(le.Uint32(msg[36:]))
	if le.Uint16(msg[42:]) != 1 || size != len(msg)-transformSize {
		return nil, errBadTransform
	}
	sealed := append(append([]byte(nil), msg[transformSize:]...), msg[4:20]...)
	plain, err := s.in.Open(nil, msg[20:20+gcmNonceSize], sealed, msg[20:transformSize])
	if err != nil {
		return nil, errBadTransform
	}
	return plain, nil
}

// seal encrypts msg for the session sessionID.
func (s *sealer) seal(msg []byte, sessionID uint64) []byte {
	h := newBuf(transformSize)
	copy(h, transformProtocol)
	_, _ = rand.Read(h[20 : 20+gcmNonceSize])
	h.u32(36, uint32(len(msg))).u16(42, 1).u64(44, sessionID)
	sealed := s.out.Seal(nil, h[20:20+gcmNonceSize], msg, h[20:transformSize])
	tag := sealed[len(sealed)-16:]
	copy(h[4:20], tag)
	return append([]byte(h), sealed[:len(sealed)-16]...)
}
