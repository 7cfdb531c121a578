package smb

import (
	"crypto/aes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/binary"
)

// kdf is SP800-108 counter mode with HMAC-SHA256, r = 32, L = 128, as
// MS-SMB2 3.1.4.2 derives every SMB 3.x key. label and context are used as
// given (the labels carry their own trailing NUL).
func kdf(key, label, context []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte{0, 0, 0, 1})
	m.Write(label)
	m.Write([]byte{0})
	m.Write(context)
	m.Write([]byte{0, 0, 0, 128})
	return m.Sum(nil)[:16]
}

// cmac is AES-128-CMAC (RFC 4493).
func cmac(key, msg []byte) []byte {
	c, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // keys are always 16 bytes here
	}
	var l, k1, k2 [16]byte
	c.Encrypt(l[:], l[:])
	double := func(dst, src *[16]byte) {
		carry := src[0] >> 7
		for i := 0; i < 15; i++ {
			dst[i] = src[i]<<1 | src[i+1]>>7
		}
		dst[15] = src[15] << 1
		if carry == 1 {
			dst[15] ^= 0x87
		}
	}
	double(&k1, &l)
	double(&k2, &k1)
	n := (len(msg) + 15) / 16
	complete := n > 0 && len(msg)%16 == 0
	if n == 0 {
		n = 1
	}
	var x, last [16]byte
	for i := 0; i < n-1; i++ {
		subtle.XORBytes(x[:], x[:], msg[i*16:(i+1)*16])
		c.Encrypt(x[:], x[:])
	}
	tail := msg[(n-1)*16:]
	if complete {
		subtle.XORBytes(last[:], tail, k1[:])
	} else {
		copy(last[:], tail)
		last[len(tail)] = 0x80
		subtle.XORBytes(last[:], last[:], k2[:])
	}
	subtle.XORBytes(x[:], x[:], last[:])
	c.Encrypt(x[:], x[:])
	return x[:]
}

// signer computes the 16-byte signature of a message for one session.
type signer struct {
	key []byte
	aes bool // AES-CMAC (3.x) rather than HMAC-SHA256 (2.x)
}

// newSigner derives the signing key of a session from its session key.
// preauth is the session's pre-authentication hash (3.1.1 only).
func newSigner(dialect uint16, sessionKey, preauth []byte) signer {
	switch {
	case dialect >= dialect311:
		return signer{key: kdf(sessionKey, []byte("SMBSigningKey\x00"), preauth), aes: true}
	case dialect >= dialect300:
		return signer{key: kdf(sessionKey, []byte("SMB2AESCMAC\x00"), []byte("SmbSign\x00")), aes: true}
	default:
		return signer{key: sessionKey}
	}
}

// sum signs msg, whose signature field must be zero.
func (s signer) sum(msg []byte) []byte {
	if s.aes {
		return cmac(s.key, msg)
	}
	m := hmac.New(sha256.New, s.key)
	m.Write(msg)
	return m.Sum(nil)[:16]
}

// sign fills in the signature of msg and sets its SIGNED flag.
func (s signer) sign(msg []byte) {
	binary.LittleEndian.PutUint32(msg[16:], binary.LittleEndian.Uint32(msg[16:])|flagSigned)
	clear(msg[48:64])
	copy(msg[48:64], s.sum(msg))
}

// verify checks the signature of msg.
func (s signer) verify(msg []byte) bool {
	got := append([]byte(nil), msg[48:64]...)
	clear(msg[48:64])
	want := s.sum(msg)
	copy(msg[48:64], got)
	return hmac.Equal(got, want)
}

// preauthFold returns SHA-512(h ‖ msg), the 3.1.1 pre-authentication
// integrity step.
func preauthFold(h, msg []byte) []byte {
	d := sha512.New()
	d.Write(h)
	d.Write(msg)
	return d.Sum(nil)
}
