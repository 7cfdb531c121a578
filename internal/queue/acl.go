package queue

import (
	"bytes"
	"encoding/xml"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
)

// Limits of a queue ACL (Set Queue ACL).
const (
	maxIdentifiers = 5
	maxIDLen       = 64
	queuePermOrder = "raup" // the fixed order of queue SAS permission letters
)

// signedIdentifier is one stored access policy of a queue. Times are kept as
// instants; an unset field is nil or empty.
type signedIdentifier struct {
	ID         string     `json:"id"`
	Start      *time.Time `json:"start,omitempty"`
	Expiry     *time.Time `json:"expiry,omitempty"`
	Permission string     `json:"perm,omitempty"`
}

// aclXML is the Set/Get Queue ACL body.
type aclXML struct {
	XMLName xml.Name      `xml:"SignedIdentifiers"`
	Items   []signedIDXML `xml:"SignedIdentifier"`
}

type signedIDXML struct {
	ID     *string    `xml:"Id"`
	Policy *policyXML `xml:"AccessPolicy"`
}

type policyXML struct {
	Start      *string `xml:"Start"`
	Expiry     *string `xml:"Expiry"`
	Permission *string `xml:"Permission"`
}

// parseACL reads a Set Queue ACL body. An empty body removes every policy.
func parseACL(body []byte) ([]signedIdentifier, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	var doc aclXML
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	if len(doc.Items) > maxIdentifiers {
		return nil, azerr.Newf(azerr.InvalidXmlDocument,
			"XML specified is not syntactically valid: at most %d signed identifiers are allowed.", maxIdentifiers)
	}
	out := make([]signedIdentifier, 0, len(doc.Items))
	for _, item := range doc.Items {
		si, err := item.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, si)
	}
	return out, nil
}

func (item signedIDXML) parse() (signedIdentifier, error) {
	var si signedIdentifier
	if item.ID == nil || *item.ID == "" || len(*item.ID) > maxIDLen {
		return si, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "Id")
	}
	si.ID = *item.ID
	if item.Policy == nil {
		return si, nil
	}
	var err error
	if si.Start, err = policyTime("Start", item.Policy.Start); err != nil {
		return si, err
	}
	if si.Expiry, err = policyTime("Expiry", item.Policy.Expiry); err != nil {
		return si, err
	}
	if item.Policy.Permission != nil {
		if si.Permission, err = normalizePerm(*item.Policy.Permission); err != nil {
			return si, err
		}
	}
	return si, nil
}

// policyTime parses an ISO 8601 instant of an access policy; empty is unset.
func policyTime(node string, v *string) (*time.Time, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return nil, nil
	}
	s := strings.TrimSpace(*v)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.9999999", "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", node)
}

// normalizePerm checks queue permission letters and writes them in the
// service's fixed order.
func normalizePerm(p string) (string, error) {
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(queuePermOrder, p[i]) < 0 {
			return "", azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "Permission")
		}
	}
	var b strings.Builder
	for i := 0; i < len(queuePermOrder); i++ {
		if strings.IndexByte(p, queuePermOrder[i]) >= 0 {
			b.WriteByte(queuePermOrder[i])
		}
	}
	return b.String(), nil
}

// appendACL renders the Get Queue ACL body.
func appendACL(dst []byte, ids []signedIdentifier) []byte {
	dst = append(dst, xmlDecl...)
	dst = append(dst, "<SignedIdentifiers>"...)
	for _, si := range ids {
		dst = append(dst, "<SignedIdentifier><Id>"...)
		dst = appendEscaped(dst, []byte(si.ID))
		dst = append(dst, "</Id><AccessPolicy>"...)
		if si.Start != nil {
			dst = append(dst, "<Start>"+timeText(*si.Start)+"</Start>"...)
		}
		if si.Expiry != nil {
			dst = append(dst, "<Expiry>"+timeText(*si.Expiry)+"</Expiry>"...)
		}
		if si.Permission != "" {
			dst = append(dst, "<Permission>"+si.Permission+"</Permission>"...)
		}
		dst = append(dst, "</AccessPolicy></SignedIdentifier>"...)
	}
	return append(dst, "</SignedIdentifiers>"...)
}

// policy finds the stored access policy id among ids, for SAS
// authorization.
func policy(ids []signedIdentifier, id string) *auth.AccessPolicy {
	for _, si := range ids {
		if si.ID == id {
			return &auth.AccessPolicy{Start: si.Start, Expiry: si.Expiry, Permission: si.Permission}
		}
	}
	return nil
}
