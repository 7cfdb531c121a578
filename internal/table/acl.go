package table

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/request"
	"github.com/lazuli-storage/lazuli/internal/store"
)

// Stored access policy limits.
const (
	maxSignedIdentifiers = 5
	maxIdentifierLength  = 64
	tablePermissions     = "raud"
)

// signedIdentifier is one stored access policy of a table, as stored (JSON)
// and as sent (XML).
type signedIdentifier struct {
	ID     string     `xml:"Id" json:"i"`
	Policy *aclPolicy `xml:"AccessPolicy" json:"p,omitempty"`
}

type aclPolicy struct {
	Start      string `xml:"Start,omitempty" json:"s,omitempty"`
	Expiry     string `xml:"Expiry,omitempty" json:"e,omitempty"`
	Permission string `xml:"Permission,omitempty" json:"r,omitempty"`
}

type signedIdentifiers struct {
	XMLName     xml.Name           `xml:"SignedIdentifiers"`
	Identifiers []signedIdentifier `xml:"SignedIdentifier"`
}

// policy converts the stored form for the authorizer.
func (si signedIdentifier) policy() *auth.AccessPolicy {
	p := &auth.AccessPolicy{}
	if si.Policy == nil {
		return p
	}
	if t, err := time.Parse(time.RFC3339Nano, si.Policy.Start); err == nil {
		p.Start = &t
	}
	if t, err := time.Parse(time.RFC3339Nano, si.Policy.Expiry); err == nil {
		p.Expiry = &t
	}
	p.Permission = si.Policy.Permission
	return p
}

// parseACL reads and validates a Set Table ACL body.
func parseACL(body []byte) ([]signedIdentifier, error) {
	if strings.TrimSpace(string(body)) == "" {
		return nil, nil
	}
	var doc signedIdentifiers
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	if len(doc.Identifiers) > maxSignedIdentifiers {
		return nil, azerr.Newf(azerr.InvalidXmlDocument, "XML specified is not syntactically valid: more than %d signed identifiers.", maxSignedIdentifiers)
	}
	for i := range doc.Identifiers {
		if err := normaliseIdentifier(&doc.Identifiers[i]); err != nil {
			return nil, err
		}
	}
	return doc.Identifiers, nil
}

func normaliseIdentifier(si *signedIdentifier) error {
	if si.ID == "" || len(si.ID) > maxIdentifierLength {
		return azerr.New(azerr.InvalidXmlDocument)
	}
	p := si.Policy
	if p == nil {
		return nil
	}
	for _, v := range []*string{&p.Start, &p.Expiry} {
		if *v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*v))
		if err != nil {
			return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "AccessPolicy")
		}
		*v = t.UTC().Format("2006-01-02T15:04:05.0000000Z")
	}
	for _, c := range p.Permission {
		if !strings.ContainsRune(tablePermissions, c) {
			return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "Permission")
		}
	}
	return nil
}

func (s *Service) getACL(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	var rec *tableRecord
	err := s.st.View(r.Context(), func(tx store.Tx) error {
		var err error
		rec, err = loadTable(tx, info.Account, t.table)
		return err
	})
	if err != nil {
		return err
	}
	out, err := xml.Marshal(signedIdentifiers{Identifiers: rec.ACL})
	if err != nil {
		return err
	}
	body := append([]byte(xml.Header), out...)
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write(body)
	return err
}

func (s *Service) setACL(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	body, err := readBody(r)
	if err != nil {
		return err
	}
	ids, err := parseACL(body)
	if err != nil {
		return err
	}
	err = s.st.Update(r.Context(), func(tx store.Tx) error {
		rec, err := loadTable(tx, info.Account, t.table)
		if err != nil {
			return err
		}
		rec.ACL = ids
		return saveTable(tx, info.Account, rec)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
