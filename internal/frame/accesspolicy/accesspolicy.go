// Package accesspolicy is the stored access policy (signed identifier) of a
// blob container, file share, queue or table, written once for the four
// services: reading and validating the SignedIdentifiers body of Set
// Container/Share/Queue/Table ACL, its limits, the one form every resource
// record stores it in (record.go), and rendering it back for the Get ACL
// operations.
//
// The rules follow the Azure REST reference pages "Define a stored access
// policy" and "Set Container ACL" (learn.microsoft.com/rest/api/storageservices/
// define-stored-access-policy, .../set-container-acl) and what the service
// answers in the official SDKs' live tests (azblob, azqueue and azfile:
// six identifiers, an Id of 65 characters and a missing Id are each 400
// InvalidXmlDocument): at most five identifiers, each a unique Id of at most
// 64 characters. Permission letters the resource does not know, or given in
// an order other than the service's, are 400 InvalidXmlDocument too (the
// service answers so to "wrld" on a container, Azure/azure-sdk-for-net issue
// 14456). An instant that is not ISO 8601 is 400 InvalidXmlNodeValue naming
// the node.
package accesspolicy

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Limits of a stored access policy document.
const (
	// MaxIdentifiers is the most stored access policies one resource has.
	MaxIdentifiers = 5
	// MaxIDLength is the longest Id, in characters.
	MaxIDLength = 64
	// MaxBodyBytes bounds a Set ACL body: five policies need well under
	// 2 KiB, so a larger body is 413 RequestBodyTooLarge before parsing.
	MaxBodyBytes = 64 << 10
)

// The letters a stored policy of each resource may grant, in the order the
// service requires them (the order of the "Create a service SAS" page).
const (
	ContainerLetters = "racwdxyltfmeopi"
	ShareLetters     = "rcwdl"
	QueueLetters     = "raup"
	TableLetters     = "raud"
)

// timeLayout is how the service renders a policy's instants.
const timeLayout = "2006-01-02T15:04:05.0000000Z"

// Identifier is one stored access policy. An unset instant is nil and an
// unset permission empty.
type Identifier struct {
	ID            string
	Start, Expiry *time.Time
	Permission    string
}

// Policy is the identifier's terms, as the SAS authorizer applies them.
func (id Identifier) Policy() *auth.AccessPolicy {
	return &auth.AccessPolicy{Start: id.Start, Expiry: id.Expiry, Permission: id.Permission}
}

// Find is the policy of the identifier named si, or nil when ids has none.
func Find(ids []Identifier, si string) *auth.AccessPolicy {
	for _, id := range ids {
		if id.ID == si {
			return id.Policy()
		}
	}
	return nil
}

// Read reads and parses a Set ACL request body; letters are the resource's
// permission letters (ContainerLetters, ...).
func Read(r *http.Request, letters string) ([]Identifier, error) {
	body, err := request.ReadBody(r, MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	return Parse(body, letters)
}

// document is the SignedIdentifiers body. Pointers tell an absent element
// from an empty one.
type document struct {
	XMLName     xml.Name `xml:"SignedIdentifiers"`
	Identifiers []struct {
		ID     *string `xml:"Id"`
		Policy *struct {
			Start      *string `xml:"Start"`
			Expiry     *string `xml:"Expiry"`
			Permission *string `xml:"Permission"`
		} `xml:"AccessPolicy"`
	} `xml:"SignedIdentifier"`
}

// Parse validates a SignedIdentifiers body. An empty body removes every
// policy and parses to nil.
func Parse(body []byte, letters string) ([]Identifier, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	var doc document
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	if len(doc.Identifiers) > MaxIdentifiers {
		return nil, invalidDocument("at most %d signed identifiers are allowed", MaxIdentifiers)
	}
	out := make([]Identifier, 0, len(doc.Identifiers))
	seen := make(map[string]bool, len(doc.Identifiers))
	for _, x := range doc.Identifiers {
		if x.ID == nil || *x.ID == "" || utf8.RuneCountInString(*x.ID) > MaxIDLength {
			return nil, invalidDocument("a signed identifier needs an Id of 1 to %d characters", MaxIDLength)
		}
		if seen[*x.ID] {
			return nil, invalidDocument("signed identifier %q appears twice", *x.ID)
		}
		seen[*x.ID] = true
		id := Identifier{ID: *x.ID}
		if p := x.Policy; p != nil {
			var err error
			if id.Start, err = parseTime("Start", p.Start); err != nil {
				return nil, err
			}
			if id.Expiry, err = parseTime("Expiry", p.Expiry); err != nil {
				return nil, err
			}
			if p.Permission != nil {
				id.Permission = strings.TrimSpace(*p.Permission)
			}
			if !inOrder(id.Permission, letters) {
				return nil, invalidDocument("permission %q: the letters allowed are %q, in that order", id.Permission, letters)
			}
		}
		out = append(out, id)
	}
	return out, nil
}

func invalidDocument(format string, args ...any) error {
	return azerr.Newf(azerr.InvalidXmlDocument, "XML specified is not syntactically valid: "+format+".", args...)
}

// inOrder reports whether every letter of perm is one of letters, each at
// most once and in the order letters gives them.
func inOrder(perm, letters string) bool {
	next := 0
	for i := 0; i < len(perm); i++ {
		at := strings.IndexByte(letters[next:], perm[i])
		if at < 0 {
			return false
		}
		next += at + 1
	}
	return true
}

// timeLayouts are the ISO 8601 forms clients send: with or without seconds
// and fractions, with a zone (Z or an offset) or without one (UTC), or a
// bare date.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseTime reads an instant; absent or blank is unset.
func parseTime(node string, raw *string) (*time.Time, error) {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return nil, nil
	}
	v := strings.TrimSpace(*raw)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", node)
}

// FormatTime renders an instant as Get ACL shows it.
func FormatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// Write writes the SignedIdentifiers element of a Get ACL body (the
// caller's writer holds the service's XML declaration). An identifier with
// no start, expiry or permission is written without an AccessPolicy
// element, as the service answers it whether it was set with an empty
// <AccessPolicy/> or none (recorded live sessions: azure-sdk-for-js
// sdk/tables/data-tables recordings "should send a null ap", and
// azure-sdk-for-python azure-storage-queue recording
// test_queue.pyTestStorageQueuetest_set_queue_acl_with_empty_signed_identifier).
func Write(x *xmlw.Writer, ids []Identifier) {
	x.Open("SignedIdentifiers")
	for _, id := range ids {
		x.Open("SignedIdentifier")
		x.Elem("Id", id.ID)
		if id.Start == nil && id.Expiry == nil && id.Permission == "" {
			x.Close("SignedIdentifier")
			continue
		}
		x.Open("AccessPolicy")
		if id.Start != nil {
			x.Elem("Start", FormatTime(*id.Start))
		}
		if id.Expiry != nil {
			x.Elem("Expiry", FormatTime(*id.Expiry))
		}
		if id.Permission != "" {
			x.Elem("Permission", id.Permission)
		}
		x.Close("AccessPolicy")
		x.Close("SignedIdentifier")
	}
	x.Close("SignedIdentifiers")
}

// AppendXML appends the SignedIdentifiers element to dst.
func AppendXML(dst []byte, ids []Identifier) []byte {
	x := xmlw.Over(dst, xmlw.Standard)
	Write(x, ids)
	return x.Bytes()
}
