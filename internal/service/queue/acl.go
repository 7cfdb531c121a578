package queue

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
)

// signedIdentifier is one stored access policy of a queue, as the queue
// record keeps it (JSON). Times are kept as instants; an unset field is nil
// or empty. Parsing, validation and rendering are accesspolicy's.
type signedIdentifier struct {
	ID         string     `json:"id"`
	Start      *time.Time `json:"start,omitempty"`
	Expiry     *time.Time `json:"expiry,omitempty"`
	Permission string     `json:"perm,omitempty"`
}

// queueACL is the stored form of parsed policies.
func queueACL(ids []accesspolicy.Identifier) []signedIdentifier {
	out := make([]signedIdentifier, 0, len(ids))
	for _, id := range ids {
		out = append(out, signedIdentifier(id))
	}
	return out
}

// queuePolicies is the stored ACL in the shared form.
func queuePolicies(acl []signedIdentifier) []accesspolicy.Identifier {
	out := make([]accesspolicy.Identifier, len(acl))
	for i, si := range acl {
		out[i] = accesspolicy.Identifier(si)
	}
	return out
}

// appendACL renders the Get Queue ACL body.
func appendACL(dst []byte, acl []signedIdentifier) []byte {
	x := xmlw.Over(dst, xmlw.Standard)
	_, _ = x.WriteString(xmlw.DeclLower)
	accesspolicy.Write(x, queuePolicies(acl))
	return x.Bytes()
}
