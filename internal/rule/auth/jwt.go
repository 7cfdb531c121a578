package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"
)

// maxTokenLength bounds the Bearer token Lazuli decodes; Entra ID access
// tokens are a few kilobytes.
const maxTokenLength = 16 << 10

// jwt is a decoded JSON Web Token in compact serialization (RFC 7519): the
// header and claims it carries, and what its signature covers. Decoding
// checks form only; verify (keys.go) checks the signature.
type jwt struct {
	header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	claims       tokenClaims
	signingInput string // "header.claims", as sent
	signature    []byte
}

// tokenClaims are the claims of an Entra ID access token that storage looks
// at.
type tokenClaims struct {
	Issuer    string       `json:"iss"`
	Audience  audience     `json:"aud"`
	Expires   *numericDate `json:"exp"`
	NotBefore *numericDate `json:"nbf"`
	IssuedAt  *numericDate `json:"iat"`
	ObjectID  string       `json:"oid"`
	TenantID  string       `json:"tid"`
	AppID     string       `json:"appid"`
	Subject   string       `json:"sub"`
	// Groups are the object ids of the security groups the principal is
	// a member of, when the application asks Entra ID for the claim
	// (groupMembershipClaims); the ACLs' group entries match them.
	Groups []string `json:"groups"`
	// UPN is a user's principal name (v1 access tokens; "Microsoft
	// identity platform access tokens", claims reference); tokens issued
	// to a service principal carry none.
	UPN string `json:"upn"`
}

// audience is the aud claim: one string or an array of them (RFC 7519 4.1.3).
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("aud is neither a string nor an array of strings")
	}
	*a = many
	return nil
}

// numericDate is a JWT time: seconds since the epoch, possibly fractional.
type numericDate struct{ time.Time }

func (d *numericDate) UnmarshalJSON(b []byte) error {
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return errors.New("a time claim is not a number")
	}
	if math.IsNaN(secs) || secs < 0 || secs > 1<<40 {
		return errors.New("a time claim is out of range")
	}
	whole, frac := math.Modf(secs)
	d.Time = time.Unix(int64(whole), int64(frac*1e9)).UTC()
	return nil
}

// parseJWT decodes a compact JWS. Errors are plain: the caller turns them
// into the service's answer.
func parseJWT(token string) (*jwt, error) {
	if len(token) > maxTokenLength {
		return nil, errors.New("the token is too long")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("the token is not a JWT: it must have three dot-separated parts")
	}
	t := &jwt{signingInput: parts[0] + "." + parts[1]}
	if err := decodeSegment(parts[0], &t.header); err != nil {
		return nil, errors.New("the token header is not base64url-encoded JSON")
	}
	if err := decodeSegment(parts[1], &t.claims); err != nil {
		return nil, errors.New("the token claims cannot be read (base64url-encoded JSON with numeric times expected): " + err.Error())
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, errors.New("the token signature is not base64url-encoded")
	}
	t.signature = sig
	if t.header.Alg == "" {
		return nil, errors.New("the token header has no alg")
	}
	return t, nil
}

// decodeSegment decodes one base64url part into v. Padding is tolerated:
// some token minters leave it.
func decodeSegment(seg string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(seg, "="))
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}
