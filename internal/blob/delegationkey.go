package blob

import (
	"encoding/xml"
	"io"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/request"
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

// getUserDelegationKey is Get User Delegation Key: a key, valid for at most
// seven days, that signs user delegation SAS for the calling principal. Only
// a Bearer caller may ask (Azure, like Azurite, refuses Shared Key and SAS).
// The key's value is derived from the account key (auth.DelegationKey), so
// nothing is stored and every node verifies the SAS it signs.
func (s *Service) getUserDelegationKey(w http.ResponseWriter, r *http.Request) error {
	info := request.Of(r)
	id := info.Identity
	if id == nil || id.Kind != auth.Bearer {
		return azerr.New(azerr.AuthenticationFailed).With("AuthenticationErrorDetail", "Only authentication scheme Bearer is supported")
	}
	if err := authorize(r, target{}, readService, nil); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxKeyInfoBody+1))
	if err != nil {
		return err
	}
	if len(body) > maxKeyInfoBody {
		return azerr.New(azerr.RequestBodyTooLarge)
	}
	var ki keyInfo
	if err := xml.Unmarshal(body, &ki); err != nil {
		return azerr.New(azerr.InvalidXmlDocument)
	}
	key, err := delegationKeyFor(ki, id.Principal, info.Version, s.clock.Now())
	if err != nil {
		return err
	}
	value, err := s.authn.DelegationKeyValue(info.Account, key)
	if err != nil {
		return err
	}
	x := newXMLWriter()
	x.open("UserDelegationKey")
	x.elem("SignedOid", key.ObjectID)
	x.elem("SignedTid", key.TenantID)
	x.elem("SignedStart", key.Start.Format(auth.DelegationKeyTimeFormat))
	x.elem("SignedExpiry", key.Expiry.Format(auth.DelegationKeyTimeFormat))
	x.elem("SignedService", key.Service)
	x.elem("SignedVersion", key.Version)
	if key.DelegatedTenantID != "" {
		x.elem("SignedDelegatedUserTid", key.DelegatedTenantID)
	}
	x.elem("Value", value)
	x.close("UserDelegationKey")
	return x.send(w, http.StatusOK)
}

// delegationKeyFor checks the requested validity period (Start optional,
// defaulting to now; Expiry after it and at most seven days from now) and
// names the key for the principal p.
func delegationKeyFor(ki keyInfo, p *auth.Principal, version string, now time.Time) (auth.DelegationKey, error) {
	key := auth.DelegationKey{Service: "b", Version: version, DelegatedTenantID: ki.DelegatedUserTid}
	if p == nil || p.ObjectID == "" || p.TenantID == "" {
		return key, azerr.New(azerr.AuthenticationFailed).With("AuthenticationErrorDetail",
			"The token names no principal: a user delegation key needs its oid (or sub) and tid claims.")
	}
	key.ObjectID, key.TenantID = p.ObjectID, p.TenantID
	bad := func(node string) error { return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", node) }
	key.Start = now.Truncate(time.Second)
	if ki.Start != "" {
		t, err := time.Parse(time.RFC3339Nano, ki.Start)
		if err != nil {
			return key, bad("Start")
		}
		key.Start = t.UTC().Truncate(time.Second)
	}
	if ki.Expiry == "" {
		return key, azerr.New(azerr.InvalidXmlDocument).With("XmlNodeName", "Expiry")
	}
	t, err := time.Parse(time.RFC3339Nano, ki.Expiry)
	if err != nil {
		return key, bad("Expiry")
	}
	key.Expiry = t.UTC().Truncate(time.Second)
	if !key.Expiry.After(key.Start) || !key.Expiry.After(now) || key.Expiry.Sub(now) > auth.MaxDelegationKeyLifetime ||
		key.Start.Sub(now) > auth.MaxDelegationKeyLifetime {
		return key, bad("Expiry")
	}
	return key, nil
}
