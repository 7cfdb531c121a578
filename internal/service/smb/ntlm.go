package smb

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/rc4"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
	"unicode/utf16"

	//lint:ignore SA1019 NTLM's NT hash is defined over MD4
	"golang.org/x/crypto/md4"
)

// NTLM negotiate flags (MS-NLMP 2.2.2.5).
const (
	ntlmUnicode       = 0x00000001
	ntlmRequestTarget = 0x00000004
	ntlmSign          = 0x00000010
	ntlmSeal          = 0x00000020 // clients that encrypt SMB ask for it
	ntlmNTLM          = 0x00000200
	ntlmAlwaysSign    = 0x00008000
	ntlmTargetServer  = 0x00020000
	ntlmExtendedSec   = 0x00080000
	ntlmTargetInfo    = 0x00800000
	ntlmVersion       = 0x02000000
	ntlm128           = 0x20000000
	ntlmKeyExch       = 0x40000000
	ntlm56            = 0x80000000

	ntlmOffered = ntlmUnicode | ntlmRequestTarget | ntlmSign | ntlmSeal | ntlmNTLM | ntlmAlwaysSign | ntlmExtendedSec |
		ntlmVersion | ntlm128 | ntlmKeyExch | ntlm56
)

var ntlmSignature = []byte("NTLMSSP\x00")

var errLogon = errors.New("logon failure")

// serverName is the NetBIOS and DNS name the server gives itself.
const serverName = "LAZULI"

// ntlmServer runs the server side of one NTLM exchange.
type ntlmServer struct {
	negotiate, challenge []byte
	serverChallenge      [8]byte
}

func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

func fromUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

func avPair(id uint16, v []byte) []byte {
	b := make([]byte, 4, 4+len(v))
	binary.LittleEndian.PutUint16(b, id)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(v)))
	return append(b, v...)
}

// filetime converts t to Windows FILETIME (100 ns since 1601).
func filetime(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano()/100 + 116444736000000000)
}

func fromFiletime(v uint64) time.Time {
	if v == 0 || v == ^uint64(0) {
		return time.Time{}
	}
	return time.Unix(0, (int64(v)-116444736000000000)*100).UTC()
}

// challengeFor answers an NTLM NEGOTIATE message.
func (n *ntlmServer) challengeFor(negotiate []byte, now time.Time) ([]byte, error) {
	if len(negotiate) < 16 || !bytes.Equal(negotiate[:8], ntlmSignature) || binary.LittleEndian.Uint32(negotiate[8:]) != 1 {
		return nil, errors.New("not an NTLM NEGOTIATE")
	}
	n.negotiate = negotiate
	flags := binary.LittleEndian.Uint32(negotiate[12:])&ntlmOffered | ntlmTargetInfo | ntlmTargetServer | ntlmUnicode | ntlmNTLM
	if _, err := rand.Read(n.serverChallenge[:]); err != nil {
		return nil, err
	}
	name := utf16le(serverName)
	var ts [8]byte
	binary.LittleEndian.PutUint64(ts[:], filetime(now))
	var info []byte
	info = append(info, avPair(2, name)...)
	info = append(info, avPair(1, name)...)
	info = append(info, avPair(4, nil)...)
	info = append(info, avPair(3, utf16le(strings.ToLower(serverName)))...)
	info = append(info, avPair(7, ts[:])...)
	info = append(info, avPair(0, nil)...)
	msg := make([]byte, 56, 56+len(name)+len(info))
	copy(msg, ntlmSignature)
	binary.LittleEndian.PutUint32(msg[8:], 2)
	putField := func(at int, v []byte) {
		binary.LittleEndian.PutUint16(msg[at:], uint16(len(v)))
		binary.LittleEndian.PutUint16(msg[at+2:], uint16(len(v)))
		binary.LittleEndian.PutUint32(msg[at+4:], uint32(len(msg)))
		msg = append(msg, v...)
	}
	binary.LittleEndian.PutUint32(msg[20:], flags)
	copy(msg[24:], n.serverChallenge[:])
	copy(msg[48:], []byte{6, 1, 0x80, 0x25, 0, 0, 0, 15}) // version 6.1.9600, NTLM revision 15
	putField(12, name)
	putField(40, info)
	n.challenge = msg
	return msg, nil
}

// authenticated is the outcome of a verified NTLM AUTHENTICATE.
type authenticated struct {
	user, domain string
	sessionKey   []byte // the exported session key
	flags        uint32 // the flags of the AUTHENTICATE message
}

// field returns the payload a security-buffer field at off points at.
func field(msg []byte, off int) ([]byte, bool) {
	if len(msg) < off+8 {
		return nil, false
	}
	l := int(binary.LittleEndian.Uint16(msg[off:]))
	at := int(binary.LittleEndian.Uint32(msg[off+4:]))
	if at+l > len(msg) || at < 0 {
		return nil, false
	}
	return msg[at : at+l], true
}

// ntResponseKey is NTOWFv2 (MS-NLMP 3.3.2).
func ntResponseKey(password, user, domain string) []byte {
	h := md4.New()
	h.Write(utf16le(password))
	m := hmac.New(md5.New, h.Sum(nil))
	m.Write(utf16le(strings.ToUpper(user) + domain))
	return m.Sum(nil)
}

func hmacMD5(key []byte, parts ...[]byte) []byte {
	m := hmac.New(md5.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// authenticate verifies an NTLMv2 AUTHENTICATE message; passwords lists the
// passwords the user may have (an account's keys as base64 text).
func (n *ntlmServer) authenticate(msg []byte, passwords func(user string) []string) (authenticated, error) {
	if len(msg) < 64 || !bytes.Equal(msg[:8], ntlmSignature) || binary.LittleEndian.Uint32(msg[8:]) != 3 || n.challenge == nil {
		return authenticated{}, errors.New("not an NTLM AUTHENTICATE")
	}
	ntResp, ok1 := field(msg, 20)
	domainB, ok2 := field(msg, 28)
	userB, ok3 := field(msg, 36)
	encKey, ok4 := field(msg, 52)
	if !ok1 || !ok2 || !ok3 || !ok4 || len(ntResp) <= 24 {
		return authenticated{}, errLogon // NTLMv1 and anonymous logons are refused
	}
	flags := binary.LittleEndian.Uint32(msg[60:])
	user, domain := fromUTF16(userB), fromUTF16(domainB)
	proof, blob := ntResp[:16], ntResp[16:]
	for _, pw := range passwords(user) {
		for _, d := range []string{domain, strings.ToUpper(domain), ""} {
			key := ntResponseKey(pw, user, d)
			if !hmac.Equal(proof, hmacMD5(key, n.serverChallenge[:], blob)) {
				continue
			}
			sessionKey := hmacMD5(key, proof)
			if flags&ntlmKeyExch != 0 && len(encKey) == 16 {
				c, _ := rc4.NewCipher(sessionKey)
				exported := make([]byte, 16)
				c.XORKeyStream(exported, encKey)
				sessionKey = exported
			}
			if !n.micValid(msg, blob, flags, sessionKey) {
				return authenticated{}, errLogon
			}
			return authenticated{user: user, domain: domain, sessionKey: sessionKey, flags: flags}, nil
		}
	}
	return authenticated{}, errLogon
}

// micValid checks the AUTHENTICATE message's MIC when the client says it
// sent one (MsvAvFlags bit 0x2 in its AV pairs).
func (n *ntlmServer) micValid(msg, blob []byte, flags uint32, sessionKey []byte) bool {
	if !hasMIC(blob) {
		return true
	}
	at := 64
	if flags&ntlmVersion != 0 {
		at = 72
	}
	if len(msg) < at+16 {
		return false
	}
	zeroed := append([]byte(nil), msg...)
	clear(zeroed[at : at+16])
	return hmac.Equal(msg[at:at+16], hmacMD5(sessionKey, n.negotiate, n.challenge, zeroed))
}

// hasMIC reads the AV pairs of an NTLMv2 client blob for MsvAvFlags 0x2.
func hasMIC(blob []byte) bool {
	if len(blob) < 28 {
		return false
	}
	av := blob[28:]
	for len(av) >= 4 {
		id, l := binary.LittleEndian.Uint16(av), int(binary.LittleEndian.Uint16(av[2:]))
		if id == 0 || len(av) < 4+l {
			return false
		}
		if id == 6 && l == 4 {
			return binary.LittleEndian.Uint32(av[4:])&2 != 0
		}
		av = av[4+l:]
	}
	return false
}

// keyPasswords lists an account's keys as the base64 text a client types.
func keyPasswords(keys [][]byte) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = base64.StdEncoding.EncodeToString(k)
	}
	return out
}

// serverSignature is the NTLM signature (MS-NLMP 3.4.4.2, extended session
// security) of the server's first message after the logon, sequence 0:
// HMAC-MD5 with the server signing key, its first 8 bytes sealed with RC4
// under the server sealing key when keys were exchanged.
func serverSignature(a authenticated, msg []byte) []byte {
	signKey := md5.Sum(append(append([]byte(nil), a.sessionKey...), "session key to server-to-client signing key magic constant\x00"...))
	seq := []byte{0, 0, 0, 0}
	checksum := hmacMD5(signKey[:], seq, msg)[:8]
	if a.flags&ntlmKeyExch != 0 {
		sealKey := md5.Sum(append(append([]byte(nil), a.sessionKey...), "session key to server-to-client sealing key magic constant\x00"...))
		c, _ := rc4.NewCipher(sealKey[:])
		c.XORKeyStream(checksum, checksum)
	}
	out := append([]byte{1, 0, 0, 0}, checksum...)
	return append(out, seq...)
}
