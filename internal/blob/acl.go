package blob

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/cond"
	"github.com/lazuli-storage/lazuli/internal/lease"
)

// maxSignedIdentifiers is the most stored access policies a container has.
const maxSignedIdentifiers = 5

// maxSignedIdentifierID is the longest signed identifier.
const maxSignedIdentifierID = 64

// aclTimeLayout is how the service renders policy instants.
const aclTimeLayout = "2006-01-02T15:04:05.0000000Z"

// containerPermissions are the letters a container's stored policy may grant.
const containerPermissions = "racwdxltmeop"

type xmlSignedIdentifiers struct {
	XMLName     xml.Name              `xml:"SignedIdentifiers"`
	Identifiers []xmlSignedIdentifier `xml:"SignedIdentifier"`
}

type xmlSignedIdentifier struct {
	ID     string `xml:"Id"`
	Policy *struct {
		Start      *string `xml:"Start"`
		Expiry     *string `xml:"Expiry"`
		Permission *string `xml:"Permission"`
	} `xml:"AccessPolicy"`
}

// getContainerACL is Get Container ACL: the stored access policies and the
// public access level.
func (s *Service) getContainerACL(w http.ResponseWriter, r *http.Request) error {
	c, err := s.viewContainer(r)
	if err != nil {
		return err
	}
	h := w.Header()
	setContainerHeaders(h, c)
	if c.Public != accessPrivate {
		h.Set("X-Ms-Blob-Public-Access", publicAccessName(c.Public))
	}
	x := newXMLWriter()
	x.open("SignedIdentifiers")
	for _, si := range c.ACL {
		x.open("SignedIdentifier")
		x.elem("Id", si.ID)
		x.open("AccessPolicy")
		if si.Start != nil {
			x.elem("Start", si.Start.Format(aclTimeLayout))
		}
		if si.Expiry != nil {
			x.elem("Expiry", si.Expiry.Format(aclTimeLayout))
		}
		if si.Permission != "" {
			x.elem("Permission", si.Permission)
		}
		x.close("AccessPolicy")
		x.close("SignedIdentifier")
	}
	x.close("SignedIdentifiers")
	return x.send(w, http.StatusOK)
}

// setContainerACL is Set Container ACL: it replaces the stored access
// policies (an empty body clears them) and the public access level (absent
// means private), and moves the ETag.
func (s *Service) setContainerACL(w http.ResponseWriter, r *http.Request) error {
	if err := validContainerName(targetOf(r).Container); err != nil {
		return err
	}
	conds, err := containerConditions(r, cond.IfModifiedSince|cond.IfUnmodifiedSince)
	if err != nil {
		return err
	}
	public, err := parsePublicAccess(r.Header)
	if err != nil {
		return err
	}
	acl, err := parseACL(r.Body)
	if err != nil {
		return err
	}
	c, err := s.updateContainer(r, conds, func(c *containerRecord) (bool, error) {
		if err := c.Lease.CheckRead(leaseID(r), s.now(), lease.Container); err != nil {
			return false, err
		}
		c.ACL, c.Public = acl, public
		return true, nil
	})
	if err != nil {
		return err
	}
	setContainerHeaders(w.Header(), c)
	return write(w, http.StatusOK)
}

// parseACL reads a SignedIdentifiers body. More than five identifiers is
// 400 InvalidXmlDocument, as is an identifier that is empty or longer than
// 64 characters; a malformed instant or permission 400 InvalidXmlNodeValue.
func parseACL(body io.Reader) ([]signedIdentifier, error) {
	raw, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var doc xmlSignedIdentifiers
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	if len(doc.Identifiers) > maxSignedIdentifiers {
		return nil, azerr.Newf(azerr.InvalidXmlDocument, "XML specified is not syntactically valid: at most %d signed identifiers are allowed.", maxSignedIdentifiers)
	}
	var acl []signedIdentifier
	for _, x := range doc.Identifiers {
		si, err := x.parse()
		if err != nil {
			return nil, err
		}
		acl = append(acl, si)
	}
	return acl, nil
}

func (x xmlSignedIdentifier) parse() (signedIdentifier, error) {
	si := signedIdentifier{ID: x.ID}
	if x.ID == "" || len(x.ID) > maxSignedIdentifierID {
		return si, azerr.New(azerr.InvalidXmlDocument)
	}
	if x.Policy == nil {
		return si, nil
	}
	var err error
	if si.Start, err = parsePolicyTime("Start", x.Policy.Start); err != nil {
		return si, err
	}
	if si.Expiry, err = parsePolicyTime("Expiry", x.Policy.Expiry); err != nil {
		return si, err
	}
	if x.Policy.Permission != nil {
		si.Permission = strings.TrimSpace(*x.Policy.Permission)
		for _, c := range si.Permission {
			if !strings.ContainsRune(containerPermissions, c) {
				return si, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "Permission")
			}
		}
	}
	return si, nil
}

// policyTimeLayouts are the ISO 8601 forms clients send.
var policyTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

func parsePolicyTime(node string, raw *string) (*time.Time, error) {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return nil, nil
	}
	v := strings.TrimSpace(*raw)
	for _, layout := range policyTimeLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", node)
}
