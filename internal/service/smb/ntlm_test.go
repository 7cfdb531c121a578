package smb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// The NTLMv2 example of MS-NLMP 4.2.4: user "User", domain "Domain",
// password "Password", server challenge 0123456789abcdef, client challenge
// aa…, time 0, target info NbDomainName "Domain", NbComputerName "Server".
const (
	nlmpResponseKeyNT   = "0c868a403bfd7a93a3001ef22ef02e3f"
	nlmpNTProofStr      = "68cd0ab851e51c96aabc927bebef6a1c"
	nlmpSessionBaseKey  = "8de40ccadbc14a82f15cb0ad0de95ca3"
	nlmpEncryptedRandom = "c5dad2544fc9799094ce1ce90bc9d03e"
	nlmpRandomSession   = "55555555555555555555555555555555"
)

func nlmpBlob(t *testing.T) []byte {
	blob := unhex(t, "0101000000000000 0000000000000000 aaaaaaaaaaaaaaaa 00000000")
	blob = append(blob, avPair(2, utf16le("Domain"))...)
	blob = append(blob, avPair(1, utf16le("Server"))...)
	blob = append(blob, avPair(0, nil)...)
	return append(blob, 0, 0, 0, 0)
}

// authenticateMessage builds an AUTHENTICATE message with the given
// fields (no MIC, no version).
func authenticateMessage(ntResp []byte, domain, user string, encKey []byte, flags uint32) []byte {
	msg := make([]byte, 64)
	copy(msg, ntlmSignature)
	binary.LittleEndian.PutUint32(msg[8:], 3)
	put := func(at int, v []byte) {
		binary.LittleEndian.PutUint16(msg[at:], uint16(len(v)))
		binary.LittleEndian.PutUint16(msg[at+2:], uint16(len(v)))
		binary.LittleEndian.PutUint32(msg[at+4:], uint32(len(msg)))
		msg = append(msg, v...)
	}
	put(12, nil)
	put(20, ntResp)
	put(28, utf16le(domain))
	put(36, utf16le(user))
	put(44, nil)
	put(52, encKey)
	binary.LittleEndian.PutUint32(msg[60:], flags)
	return msg
}

func TestNTLMv2KnownAnswers(t *testing.T) {
	key := ntResponseKey("Password", "User", "Domain")
	if !bytes.Equal(key, unhex(t, nlmpResponseKeyNT)) {
		t.Fatalf("NTOWFv2 = %x, want %s", key, nlmpResponseKeyNT)
	}
	proof := hmacMD5(key, unhex(t, "0123456789abcdef"), nlmpBlob(t))
	if !bytes.Equal(proof, unhex(t, nlmpNTProofStr)) {
		t.Fatalf("NTProofStr = %x, want %s", proof, nlmpNTProofStr)
	}
	if base := hmacMD5(key, proof); !bytes.Equal(base, unhex(t, nlmpSessionBaseKey)) {
		t.Fatalf("SessionBaseKey = %x, want %s", base, nlmpSessionBaseKey)
	}
}

func TestNTLMAuthenticate(t *testing.T) {
	ntResp := append(unhex(t, nlmpNTProofStr), nlmpBlob(t)...)
	// Accounts match case-insensitively; each has two keys.
	passwords := func(user string) []string {
		if strings.EqualFold(user, "User") {
			return []string{"not it", "Password"}
		}
		return nil
	}
	for _, tc := range []struct {
		name       string
		msg        []byte
		wantKey    string
		wantLogonX bool
	}{
		{"key exchange", authenticateMessage(ntResp, "Domain", "User", unhex(t, nlmpEncryptedRandom), ntlmKeyExch|ntlmUnicode), nlmpRandomSession, false},
		{"no key exchange", authenticateMessage(ntResp, "Domain", "User", nil, ntlmUnicode), nlmpSessionBaseKey, false},
		{"user case", authenticateMessage(ntResp, "Domain", "USER", nil, ntlmUnicode), nlmpSessionBaseKey, false},
		{"unknown user", authenticateMessage(ntResp, "Domain", "Other", nil, ntlmUnicode), "", true},
		{"other domain", authenticateMessage(ntResp, "Elsewhere", "User", nil, ntlmUnicode), "", true},
		{"NTLMv1", authenticateMessage(make([]byte, 24), "Domain", "User", nil, ntlmUnicode), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &ntlmServer{challenge: []byte{1}}
			copy(n.serverChallenge[:], unhex(t, "0123456789abcdef"))
			got, err := n.authenticate(tc.msg, passwords)
			if tc.wantLogonX {
				if !errors.Is(err, errLogon) {
					t.Fatalf("err = %v, want logon failure", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got.sessionKey, unhex(t, tc.wantKey)) {
				t.Fatalf("session key %x, err %v; want %s", got.sessionKey, err, tc.wantKey)
			}
		})
	}
}

func TestChallengeEchoesFlags(t *testing.T) {
	neg := append(append([]byte{}, ntlmSignature...), 1, 0, 0, 0, 0x97, 0x82, 0x08, 0xe2)
	n := &ntlmServer{}
	msg, err := n.challengeFor(neg, fromFiletime(0x01d0aecbadf5a1a1))
	if err != nil {
		t.Fatal(err)
	}
	flags := binary.LittleEndian.Uint32(msg[20:])
	for _, f := range []uint32{ntlmUnicode, ntlmSign, ntlmExtendedSec, ntlmKeyExch, ntlmTargetInfo, ntlm128} {
		if flags&f == 0 {
			t.Errorf("flags %#x lack %#x", flags, f)
		}
	}
	if info, ok := field(msg, 40); !ok || !bytes.Contains(info, utf16le(serverName)) {
		t.Errorf("target info %x lacks the server name", info)
	}
}
