package file

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/etag"
	"github.com/lazuli-storage/lazuli/internal/lease"
	"github.com/lazuli-storage/lazuli/internal/store"
)

// maxSignedIdentifiers is how many stored access policies a share holds.
const maxSignedIdentifiers = 5

// filePermissionLetters are the letters a share's stored policy may grant.
const filePermissionLetters = "rcwdl"

// aclDocument is the Set/Get Share ACL body.
type aclDocument struct {
	XMLName     xml.Name `xml:"SignedIdentifiers"`
	Identifiers []struct {
		ID     string `xml:"Id"`
		Policy struct {
			Start      string `xml:"Start"`
			Expiry     string `xml:"Expiry"`
			Permission string `xml:"Permission"`
		} `xml:"AccessPolicy"`
	} `xml:"SignedIdentifier"`
}

// parseACL reads and validates a Set Share ACL body.
func parseACL(body io.Reader) ([]signedIdentifier, error) {
	raw, err := io.ReadAll(io.LimitReader(body, 64<<10))
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, nil
	}
	var doc aclDocument
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	if len(doc.Identifiers) > maxSignedIdentifiers {
		return nil, azerr.Newf(azerr.InvalidXmlDocument, "A share may have at most %d stored access policies.", maxSignedIdentifiers)
	}
	out := make([]signedIdentifier, 0, len(doc.Identifiers))
	for _, d := range doc.Identifiers {
		id := signedIdentifier{ID: d.ID, Permission: d.Policy.Permission}
		if id.ID == "" || len(id.ID) > 64 {
			return nil, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "Id")
		}
		if strings.Trim(id.Permission, filePermissionLetters) != "" {
			return nil, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", "Permission")
		}
		if id.Start, err = parsePolicyTime(d.Policy.Start, "Start"); err != nil {
			return nil, err
		}
		if id.Expiry, err = parsePolicyTime(d.Policy.Expiry, "Expiry"); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

func parsePolicyTime(raw, node string) (time.Time, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return time.Time{}, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", node)
	}
	return t.UTC(), nil
}

func (s *Service) getShareACL(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	sh, err := s.viewShare(r, t, s.now())
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	x := newXML()
	x.open("SignedIdentifiers")
	for _, id := range sh.ACL {
		x.open("SignedIdentifier")
		x.elem("Id", id.ID)
		x.open("AccessPolicy")
		if !id.Start.IsZero() {
			x.elem("Start", formatTime(id.Start))
		}
		if !id.Expiry.IsZero() {
			x.elem("Expiry", formatTime(id.Expiry))
		}
		if id.Permission != "" {
			x.elem("Permission", id.Permission)
		}
		x.close("AccessPolicy")
		x.close("SignedIdentifier")
	}
	x.close("SignedIdentifiers")
	x.send(w, http.StatusOK)
	return nil
}

func (s *Service) setShareACL(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	acl, err := parseACL(r.Body)
	if err != nil {
		return err
	}
	sh, err := s.updateShare(r, t, s.now(), func(sh *shareRecord) { sh.ACL = acl })
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	w.WriteHeader(http.StatusOK)
	return nil
}

// lookupPolicy finds a stored access policy of the request's share for a
// service SAS that names one (si).
func (s *Service) lookupPolicy(ctx context.Context, t *target, si string) (*auth.AccessPolicy, error) {
	var found *auth.AccessPolicy
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		found, err = policyIn(tx, t, si)
		return err
	})
	return found, err
}

// policyIn reads the stored access policy si of the target's share in tx
// (nil when there is none).
func policyIn(tx store.Tx, t *target, si string) (*auth.AccessPolicy, error) {
	sh, ok, err := loadShare(tx, t.Account, t.Share, "")
	if err != nil || !ok {
		return nil, err
	}
	var found *auth.AccessPolicy
	for _, id := range sh.ACL {
		if id.ID != si {
			continue
		}
		p := &auth.AccessPolicy{Permission: id.Permission}
		if !id.Start.IsZero() {
			start := id.Start
			p.Start = &start
		}
		if !id.Expiry.IsZero() {
			expiry := id.Expiry
			p.Expiry = &expiry
		}
		found = p
	}
	return found, nil
}

func (s *Service) leaseShare(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	req, err := lease.ParseRequest(r.Header, lease.Share)
	if err != nil {
		return err
	}
	now := s.now()
	var sh *shareRecord
	var res lease.Result
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		if sh, err = shareFor(tx, t); err != nil {
			return err
		}
		if sh.Lease, res, err = lease.Apply(sh.Lease, req, now, lease.Share); err != nil {
			return err
		}
		return saveShare(tx, t.Account, t.Share, t.Snapshot, sh)
	})
	if err != nil {
		return err
	}
	writeLeaseResult(w, sh.ETag, res)
	return nil
}

// writeLeaseResult answers a lease operation; the ETag is the resource's,
// unchanged by the lease.
func writeLeaseResult(w http.ResponseWriter, tick etag.Tick, res lease.Result) {
	h := w.Header()
	setETag(h, tick)
	if res.LeaseID != "" {
		h.Set(lease.HeaderID, res.LeaseID)
	}
	if res.LeaseTime != nil {
		h.Set("X-Ms-Lease-Time", strconv.Itoa(*res.LeaseTime))
	}
	w.WriteHeader(res.Status)
}
