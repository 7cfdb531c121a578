package table

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
)

// signedIdentifier is one stored access policy of a table as the table
// record keeps it (JSON, instants as text). Parsing, validation and
// rendering are accesspolicy's.
type signedIdentifier struct {
	ID     string     `json:"i"`
	Policy *aclPolicy `json:"p,omitempty"`
}

type aclPolicy struct {
	Start      string `json:"s,omitempty"`
	Expiry     string `json:"e,omitempty"`
	Permission string `json:"r,omitempty"`
}

// tableACL is the stored form of parsed policies.
func tableACL(ids []accesspolicy.Identifier) []signedIdentifier {
	out := make([]signedIdentifier, 0, len(ids))
	for _, id := range ids {
		p := &aclPolicy{Permission: id.Permission}
		if id.Start != nil {
			p.Start = accesspolicy.FormatTime(*id.Start)
		}
		if id.Expiry != nil {
			p.Expiry = accesspolicy.FormatTime(*id.Expiry)
		}
		out = append(out, signedIdentifier{ID: id.ID, Policy: p})
	}
	return out
}

// tablePolicies is the stored ACL in the shared form.
func tablePolicies(acl []signedIdentifier) []accesspolicy.Identifier {
	out := make([]accesspolicy.Identifier, len(acl))
	for i, si := range acl {
		out[i].ID = si.ID
		if si.Policy == nil {
			continue
		}
		out[i].Permission = si.Policy.Permission
		out[i].Start = storedTime(si.Policy.Start)
		out[i].Expiry = storedTime(si.Policy.Expiry)
	}
	return out
}

// storedTime reads an instant as tableACL wrote it; empty is unset.
func storedTime(v string) *time.Time {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return &t
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
	x := xmlw.New(xmlw.DeclLine, xmlw.Standard)
	accesspolicy.Write(x, tablePolicies(rec.ACL))
	body := x.Bytes()
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
	policies, err := accesspolicy.Read(r, accesspolicy.TableLetters)
	if err != nil {
		return err
	}
	ids := tableACL(policies)
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
