package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"time"
)

// MaxDelegationKeyLifetime is the longest validity Get User Delegation Key
// grants, counted from the request.
const MaxDelegationKeyLifetime = 7 * 24 * time.Hour

// DelegationKeyTimeFormat is how a user delegation key's start and expiry
// are written in the key and signed in a SAS (ISO 8601, whole seconds).
const DelegationKeyTimeFormat = "2006-01-02T15:04:05Z"

// DelegationKey is a user delegation key's identity: everything Get User
// Delegation Key returns except the value.
//
// The value is not stored anywhere: it is an HMAC of these fields under the
// account key, so any node recomputes it from the fields a user delegation
// SAS carries (skoid, sktid, skt, ske, sks, skv, skdutid), keys rotate with
// the account keys, and a key can be neither forged without an account key
// nor stretched past its expiry (changing ske changes the value).
type DelegationKey struct {
	ObjectID, TenantID string
	Start, Expiry      time.Time
	Service            string // sks: "b"
	Version            string // skv: the x-ms-version of the request that got it
	DelegatedTenantID  string // skdutid, versions 2025-07-05 and later
}

// keyInfo is the canonical text the value is derived from.
func (k DelegationKey) keyInfo() string {
	return strings.Join([]string{"lazuli user delegation key v1", k.ObjectID, k.TenantID,
		k.Start.UTC().Format(DelegationKeyTimeFormat), k.Expiry.UTC().Format(DelegationKeyTimeFormat),
		k.Service, k.Version, k.DelegatedTenantID}, "\n")
}

func (k DelegationKey) value(accountKey []byte) []byte {
	return sign(accountKey, k.keyInfo())
}

// base64Value is k's value under accountKey, as the response carries it.
func base64Value(k DelegationKey, accountKey []byte) string {
	return base64.StdEncoding.EncodeToString(k.value(accountKey))
}

// delegationSignatureMatches reports whether sig is stringToSign signed with
// k's value under any of the account's keys.
func delegationSignatureMatches(accountKeys [][]byte, k DelegationKey, stringToSign, sig string) bool {
	want, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(want) != sha256.Size {
		return false
	}
	for _, key := range accountKeys {
		if hmac.Equal(sign(k.value(key), stringToSign), want) {
			return true
		}
	}
	return false
}
