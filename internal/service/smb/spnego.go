package smb

import (
	"bytes"
	"encoding/asn1"
)

var (
	oidSPNEGO = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 2}
	oidNTLM   = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 311, 2, 2, 10}
)

// der wraps content in a DER tag and length.
func der(tag byte, content ...[]byte) []byte {
	body := bytes.Join(content, nil)
	n := len(body)
	out := []byte{tag}
	switch {
	case n < 0x80:
		out = append(out, byte(n))
	case n < 0x100:
		out = append(out, 0x81, byte(n))
	default:
		out = append(out, 0x82, byte(n>>8), byte(n))
	}
	return append(out, body...)
}

func oid(o asn1.ObjectIdentifier) []byte {
	b, _ := asn1.Marshal(o)
	return b
}

// negTokenInit is the NEGOTIATE response's security buffer: SPNEGO
// offering NTLMSSP only.
func negTokenInit() []byte {
	return der(0x60, oid(oidSPNEGO), der(0xa0, der(0x30, der(0xa0, der(0x30, oid(oidNTLM))))))
}

// SPNEGO negState values.
const (
	negAcceptCompleted  = 0
	negAcceptIncomplete = 1
)

// negTokenResp wraps an NTLM message (or none) in a SPNEGO response.
func negTokenResp(state byte, token []byte, withMech bool) []byte {
	parts := [][]byte{der(0xa0, der(0x0a, []byte{state}))}
	if withMech {
		parts = append(parts, der(0xa1, oid(oidNTLM)))
	}
	if token != nil {
		parts = append(parts, der(0xa2, der(0x04, token)))
	}
	return der(0xa1, der(0x30, parts...))
}

// ntlmToken finds the NTLM message in a security buffer: the buffer itself
// when raw (the Linux kernel), else the OCTET STRING holding it inside a
// SPNEGO token. ok reports whether the buffer was SPNEGO.
func ntlmToken(buf []byte) (token []byte, spnego bool) {
	if bytes.HasPrefix(buf, ntlmSignature) {
		return buf, false
	}
	i := bytes.Index(buf, ntlmSignature)
	if i < 0 {
		return nil, true
	}
	var n int
	switch {
	case i >= 2 && buf[i-2] == 0x04 && buf[i-1] < 0x80:
		n = int(buf[i-1])
	case i >= 3 && buf[i-3] == 0x04 && buf[i-2] == 0x81:
		n = int(buf[i-1])
	case i >= 4 && buf[i-4] == 0x04 && buf[i-3] == 0x82:
		n = int(buf[i-2])<<8 | int(buf[i-1])
	default:
		return nil, true
	}
	if i+n > len(buf) {
		return nil, true
	}
	return buf[i : i+n], true
}

// mechTypes returns the DER MechTypeList of a client's SPNEGO
// negTokenInit (nil when buf is not one): what mechListMIC covers.
func mechTypes(buf []byte) []byte {
	var app, init, seq, list asn1.RawValue
	var spnego asn1.ObjectIdentifier
	if _, err := asn1.Unmarshal(buf, &app); err != nil || app.Tag != 0 || app.Class != asn1.ClassApplication {
		return nil
	}
	rest, err := asn1.Unmarshal(app.Bytes, &spnego)
	if err != nil || !spnego.Equal(oidSPNEGO) {
		return nil
	}
	if _, err := asn1.Unmarshal(rest, &init); err != nil || init.Tag != 0 {
		return nil
	}
	if _, err := asn1.Unmarshal(init.Bytes, &seq); err != nil {
		return nil
	}
	if _, err := asn1.Unmarshal(seq.Bytes, &list); err != nil || list.Tag != 0 || list.Class != asn1.ClassContextSpecific {
		return nil
	}
	return list.Bytes
}

// negTokenRespMIC is the final SPNEGO response carrying mechListMIC: the
// server's NTLM signature over the client's MechTypeList, which clients
// that asked for NTLM signing or sealing verify (RFC 4178 §5).
func negTokenRespMIC(mic []byte) []byte {
	return der(0xa1, der(0x30, der(0xa0, der(0x0a, []byte{negAcceptCompleted})), der(0xa3, der(0x04, mic))))
}
