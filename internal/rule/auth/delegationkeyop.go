package auth

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// maxKeyInfoBody bounds the KeyInfo request body; the real one is a few
// hundred bytes.
const maxKeyInfoBody = 64 << 10

// keyInfo is the request body of Get User Delegation Key.
type keyInfo struct {
	XMLName          xml.Name `xml:"KeyInfo"`
	Start            string   `xml:"Start"`
	Expiry           string   `xml:"Expiry"`
	DelegatedUserTid string   `xml:"DelegatedUserTid"`
}

// GetUserDelegationKey is the Get User Delegation Key operation of the Blob,
// Queue and File services (POST ?restype=service&comp=userdelegationkey):
// it reads the KeyInfo body and returns the UserDelegationKey response body
// for the caller's principal, valid for at most seven days. Only a Bearer
// caller may ask: Shared Key and SAS are 403 AuthenticationFailed, as in
// Azure and Azurite. version is the request's x-ms-version (the key's skv);
// now is the service's clock.
func GetUserDelegationKey(accounts *Accounts, id *Identity, svc Service, version string, body io.Reader, now time.Time) ([]byte, error) {
	if id == nil || id.Kind != Bearer {
		return nil, authFailed("Only authentication scheme Bearer is supported")
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxKeyInfoBody+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxKeyInfoBody {
		return nil, azerr.New(azerr.RequestBodyTooLarge)
	}
	var ki keyInfo
	if err := xml.Unmarshal(raw, &ki); err != nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	key, err := delegationKeyFor(ki, id.Principal, svc, version, now)
	if err != nil {
		return nil, err
	}
	acc, ok := accounts.Lookup(id.Account)
	if !ok || len(acc.Keys) == 0 {
		return nil, authFailed(fmt.Sprintf("The account '%s' does not exist.", id.Account))
	}
	return marshalDelegationKey(key, acc.Keys[0]), nil
}

// delegationKeyFor checks the requested validity period (Start optional,
// defaulting to now; Expiry after it and at most seven days from now) and
// names the key for the principal p.
func delegationKeyFor(ki keyInfo, p *Principal, svc Service, version string, now time.Time) (DelegationKey, error) {
	key := DelegationKey{Service: string(svc.letter()), Version: version, DelegatedTenantID: ki.DelegatedUserTid}
	if p == nil || p.ObjectID == "" || p.TenantID == "" {
		return key, authFailed("The token names no principal: a user delegation key needs its oid (or sub) and tid claims.")
	}
	key.ObjectID, key.TenantID = p.ObjectID, p.TenantID
	bad := func(node string) error { return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", node) }
	key.Start = now.Truncate(time.Second)
	if ki.Start != "" {
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(ki.Start))
		if err != nil {
			return key, bad("Start")
		}
		key.Start = t.UTC().Truncate(time.Second)
	}
	if ki.Expiry == "" {
		return key, azerr.New(azerr.InvalidXmlDocument).With("XmlNodeName", "Expiry")
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(ki.Expiry))
	if err != nil {
		return key, bad("Expiry")
	}
	key.Expiry = t.UTC().Truncate(time.Second)
	if key.Start.Sub(now) > MaxDelegationKeyLifetime {
		return key, bad("Start")
	}
	if !key.Expiry.After(key.Start) || !key.Expiry.After(now) || key.Expiry.Sub(now) > MaxDelegationKeyLifetime {
		return key, bad("Expiry")
	}
	return key, nil
}

// marshalDelegationKey is the UserDelegationKey response body.
func marshalDelegationKey(k DelegationKey, accountKey []byte) []byte {
	x := xmlw.New(xmlw.DeclLower, xmlw.Standard)
	x.Open("UserDelegationKey")
	elem := x.Elem
	elem("SignedOid", k.ObjectID)
	elem("SignedTid", k.TenantID)
	elem("SignedStart", k.Start.Format(DelegationKeyTimeFormat))
	elem("SignedExpiry", k.Expiry.Format(DelegationKeyTimeFormat))
	elem("SignedService", k.Service)
	elem("SignedVersion", k.Version)
	if k.DelegatedTenantID != "" {
		elem("SignedDelegatedUserTid", k.DelegatedTenantID)
	}
	elem("Value", base64Value(k, accountKey))
	x.Close("UserDelegationKey")
	return x.Bytes()
}
