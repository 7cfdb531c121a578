package queue

import (
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/azerr"
)

func aclDoc(items ...string) string {
	return `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers>` + strings.Join(items, "") + `</SignedIdentifiers>`
}

func aclItem(id, start, expiry, perm string) string {
	return "<SignedIdentifier><Id>" + id + "</Id><AccessPolicy><Start>" + start + "</Start><Expiry>" + expiry +
		"</Expiry><Permission>" + perm + "</Permission></AccessPolicy></SignedIdentifier>"
}

func TestParseACL(t *testing.T) {
	start := time.Date(2009, 9, 28, 8, 49, 37, 0, time.UTC)
	ids, err := parseACL([]byte(aclDoc(aclItem("MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=",
		"2009-09-28T08:49:37.0000000Z", "2009-09-29T08:49:37Z", "pura"))))
	if err != nil || len(ids) != 1 {
		t.Fatalf("parseACL: %v %v", ids, err)
	}
	if !ids[0].Start.Equal(start) || !ids[0].Expiry.Equal(start.Add(24*time.Hour)) || ids[0].Permission != "raup" {
		t.Fatalf("parsed %+v", ids[0])
	}
	if ids, err := parseACL(nil); err != nil || ids != nil {
		t.Fatalf("empty body: %v %v", ids, err)
	}
	if ids, err := parseACL([]byte(aclDoc("<SignedIdentifier><Id>only</Id></SignedIdentifier>"))); err != nil ||
		len(ids) != 1 || ids[0].Start != nil || ids[0].Permission != "" {
		t.Fatalf("policy without times: %+v %v", ids, err)
	}
	six := make([]string, 6)
	for i := range six {
		six[i] = aclItem(strings.Repeat("x", i+1), "", "", "r")
	}
	bad := map[string]string{
		"six identifiers": aclDoc(six...),
		"not xml":         "<SignedIdentifiers>",
		"wrong root":      "<Other/>",
		"long id":         aclDoc(aclItem(strings.Repeat("i", 65), "", "", "r")),
		"empty id":        aclDoc(aclItem("", "", "", "r")),
		"bad time":        aclDoc(aclItem("a", "yesterday", "", "r")),
		"bad permission":  aclDoc(aclItem("a", "", "", "rw")),
	}
	for name, body := range bad {
		if _, err := parseACL([]byte(body)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if e, ok := azerr.As(err); !ok || e.Status != 400 {
			t.Errorf("%s: %v, want a 400", name, err)
		}
	}
}

func TestACLRoundTrip(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC)
	in := []signedIdentifier{{ID: "a<&>", Start: &start, Permission: "ap"}, {ID: "b"}}
	out, err := parseACL(appendACL(nil, in))
	if err != nil || len(out) != 2 {
		t.Fatalf("round trip: %v %v", out, err)
	}
	if out[0].ID != "a<&>" || !out[0].Start.Equal(start.Truncate(100*time.Nanosecond)) || out[0].Expiry != nil ||
		out[0].Permission != "ap" || out[1].ID != "b" {
		t.Fatalf("round trip: %+v", out)
	}
	if p := policy(out, "b"); p == nil || p.Start != nil {
		t.Fatalf("policy(b) = %+v", p)
	}
	if policy(out, "c") != nil {
		t.Fatal("policy(c) found")
	}
}

func FuzzParseACL(f *testing.F) {
	f.Add([]byte(aclDoc(aclItem("id", "2009-09-28T08:49:37.0000000Z", "2009-09-29T08:49:37Z", "raup"))))
	f.Add([]byte(""))
	f.Add([]byte("<SignedIdentifiers><SignedIdentifier/></SignedIdentifiers>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		ids, err := parseACL(body)
		if err != nil {
			if _, ok := azerr.As(err); !ok {
				t.Fatalf("non-Azure error %v", err)
			}
			return
		}
		if len(ids) > maxIdentifiers {
			t.Fatalf("%d identifiers accepted", len(ids))
		}
		again, err := parseACL(appendACL(nil, ids))
		if err != nil || len(again) != len(ids) {
			t.Fatalf("rendered ACL does not parse back: %v", err)
		}
	})
}
