package accesspolicy

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func doc(items ...string) string {
	return `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers>` + strings.Join(items, "") + `</SignedIdentifiers>`
}

func item(id, start, expiry, perm string) string {
	return "<SignedIdentifier><Id>" + id + "</Id><AccessPolicy><Start>" + start + "</Start><Expiry>" + expiry +
		"</Expiry><Permission>" + perm + "</Permission></AccessPolicy></SignedIdentifier>"
}

func TestParseTimes(t *testing.T) {
	want := time.Date(2009, 9, 28, 8, 49, 0, 0, time.UTC)
	cases := []struct {
		raw  string
		want time.Time
	}{
		{"2009-09-28T08:49:00.0000000Z", want},
		{"2009-09-28T08:49:00Z", want},
		{"2009-09-28T08:49Z", want},
		{"2009-09-28T10:49+02:00", want},
		{"2009-09-28T10:49:00.5+02:00", want.Add(500 * time.Millisecond)},
		{"2009-09-28T08:49:00", want},
		{"2009-09-28T08:49:00.1234567", want.Add(123456700)},
		{"2009-09-28T08:49", want},
		{"2009-09-28", time.Date(2009, 9, 28, 0, 0, 0, 0, time.UTC)},
		{"  2009-09-28T08:49:00Z\n", want},
	}
	for _, c := range cases {
		ids, err := Parse([]byte(doc(item("a", c.raw, c.raw, "r"))), QueueLetters)
		if err != nil {
			t.Errorf("%q: %v", c.raw, err)
			continue
		}
		if !ids[0].Start.Equal(c.want) || !ids[0].Expiry.Equal(c.want) || ids[0].Start.Location() != time.UTC {
			t.Errorf("%q: start %v expiry %v, want %v", c.raw, ids[0].Start, ids[0].Expiry, c.want)
		}
	}
}

func TestParseAccepts(t *testing.T) {
	cases := []struct {
		name, body, letters string
		want                []Identifier
	}{
		{"empty body clears", "", ContainerLetters, nil},
		{"blank body clears", " \n", ContainerLetters, nil},
		{"no identifiers", doc(), TableLetters, []Identifier{}},
		{"no policy", doc("<SignedIdentifier><Id>only</Id></SignedIdentifier>"), TableLetters, []Identifier{{ID: "only"}}},
		{"blank times", doc(item("a", "", " ", "rd")), TableLetters, []Identifier{{ID: "a", Permission: "rd"}}},
		{"every container letter", doc(item("a", "", "", ContainerLetters)), ContainerLetters, []Identifier{{ID: "a", Permission: ContainerLetters}}},
		{"every share letter", doc(item("a", "", "", "rcwdl")), ShareLetters, []Identifier{{ID: "a", Permission: "rcwdl"}}},
		{"every queue letter", doc(item("a", "", "", "raup")), QueueLetters, []Identifier{{ID: "a", Permission: "raup"}}},
		{"every table letter", doc(item("a", "", "", "raud")), TableLetters, []Identifier{{ID: "a", Permission: "raud"}}},
		{"64 characters", doc(item(strings.Repeat("é", 64), "", "", "")), QueueLetters, []Identifier{{ID: strings.Repeat("é", 64)}}},
		{"five", doc(item("1", "", "", ""), item("2", "", "", ""), item("3", "", "", ""), item("4", "", "", ""), item("5", "", "", "")),
			QueueLetters, []Identifier{{ID: "1"}, {ID: "2"}, {ID: "3"}, {ID: "4"}, {ID: "5"}}},
	}
	for _, c := range cases {
		got, err := Parse([]byte(c.body), c.letters)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(got) != len(c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i].ID != c.want[i].ID || got[i].Permission != c.want[i].Permission || got[i].Start != nil || got[i].Expiry != nil {
				t.Errorf("%s: [%d] = %+v, want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

func TestParseRefuses(t *testing.T) {
	six := make([]string, 6)
	for i := range six {
		six[i] = item(strings.Repeat("x", i+1), "", "", "r")
	}
	cases := []struct {
		name, body, letters string
		code                string
		node                string
	}{
		{"six identifiers", doc(six...), QueueLetters, azerr.InvalidXmlDocument, ""},
		{"not xml", "<SignedIdentifiers>", QueueLetters, azerr.InvalidXmlDocument, ""},
		{"wrong root", "<Other/>", QueueLetters, azerr.InvalidXmlDocument, ""},
		{"65 characters", doc(item(strings.Repeat("i", 65), "", "", "r")), ContainerLetters, azerr.InvalidXmlDocument, ""},
		{"empty id", doc(item("", "", "", "r")), ShareLetters, azerr.InvalidXmlDocument, ""},
		{"no id", doc("<SignedIdentifier><AccessPolicy><Permission>rw</Permission></AccessPolicy></SignedIdentifier>"),
			ContainerLetters, azerr.InvalidXmlDocument, ""},
		{"same id twice", doc(item("a", "", "", "r"), item("a", "", "", "r")), TableLetters, azerr.InvalidXmlDocument, ""},
		{"letter out of order", doc(item("a", "", "", "wrld")), ContainerLetters, azerr.InvalidXmlDocument, ""},
		{"letter twice", doc(item("a", "", "", "rr")), QueueLetters, azerr.InvalidXmlDocument, ""},
		{"letter of another service", doc(item("a", "", "", "rw")), QueueLetters, azerr.InvalidXmlDocument, ""},
		{"unknown letter", doc(item("a", "", "", "rz")), ContainerLetters, azerr.InvalidXmlDocument, ""},
		{"bad start", doc(item("a", "yesterday", "", "r")), QueueLetters, azerr.InvalidXmlNodeValue, "Start"},
		{"bad expiry", doc(item("a", "", "2009-13-01", "r")), TableLetters, azerr.InvalidXmlNodeValue, "Expiry"},
		{"bad utf-8", doc(item("a\xff", "", "", "r")), QueueLetters, azerr.InvalidXmlDocument, ""},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.body), c.letters)
		e, ok := azerr.As(err)
		if !ok || e.Status != http.StatusBadRequest || e.Code != c.code {
			t.Errorf("%s: %v, want 400 %s", c.name, err, c.code)
			continue
		}
		if c.node != "" && (len(e.Details) != 1 || e.Details[0] != azerr.Detail{Name: "XmlNodeName", Value: c.node}) {
			t.Errorf("%s: details %v do not name %s", c.name, e.Details, c.node)
		}
	}
}

func TestRead(t *testing.T) {
	r := httptest.NewRequest("PUT", "/c?comp=acl", strings.NewReader(doc(item("a", "", "", "r"))))
	if ids, err := Read(r, ContainerLetters); err != nil || len(ids) != 1 {
		t.Fatalf("Read: %v %v", ids, err)
	}
	big := doc(item("a", "", "", "r")) + strings.Repeat(" ", MaxBodyBytes)
	r = httptest.NewRequest("PUT", "/c?comp=acl", strings.NewReader(big))
	if _, err := Read(r, ContainerLetters); !azerr.Is(err, azerr.RequestBodyTooLarge) {
		t.Fatalf("body of %d bytes: %v, want RequestBodyTooLarge", len(big), err)
	}
}

// TestAppendXML: an identifier without start, expiry or permission has no
// AccessPolicy element, as Get Queue ACL answers in azure-sdk-for-python's
// recording test_queue.pyTestStorageQueuetest_set_queue_acl_with_empty_signed_identifier.
func TestAppendXML(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 678, time.FixedZone("x", 3600))
	ids := []Identifier{{ID: "a<&>", Start: &start, Permission: "ap"}, {ID: "b"}}
	got := string(AppendXML([]byte("decl"), ids))
	want := "decl<SignedIdentifiers><SignedIdentifier><Id>a&lt;&amp;&gt;</Id><AccessPolicy>" +
		"<Start>2030-01-02T02:04:05.0000006Z</Start><Permission>ap</Permission></AccessPolicy></SignedIdentifier>" +
		"<SignedIdentifier><Id>b</Id></SignedIdentifier></SignedIdentifiers>"
	if got != want {
		t.Fatalf("AppendXML:\n got %s\nwant %s", got, want)
	}
	if got := string(AppendXML(nil, nil)); got != "<SignedIdentifiers></SignedIdentifiers>" {
		t.Fatalf("no identifiers: %s", got)
	}
}

func TestFind(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := []Identifier{{ID: "a", Expiry: &exp, Permission: "r"}, {ID: "b"}}
	if p := Find(ids, "a"); p == nil || p.Expiry != &exp || p.Permission != "r" || p.Start != nil {
		t.Fatalf("Find(a) = %+v", p)
	}
	if p := Find(ids, "b"); p == nil || p.Permission != "" {
		t.Fatalf("Find(b) = %+v", p)
	}
	if Find(ids, "c") != nil || Find(nil, "a") != nil {
		t.Fatal("found a policy that does not exist")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(doc(item("id", "2009-09-28T08:49:37.0000000Z", "2009-09-29T08:49:37Z", "raup"))), QueueLetters)
	f.Add([]byte(""), ContainerLetters)
	f.Add([]byte("<SignedIdentifiers><SignedIdentifier/></SignedIdentifiers>"), TableLetters)
	f.Add([]byte(doc(item("a", "2009-09-28", "", "rcwdl"), item("b", "", "2009-09-28T08:49", ""))), ShareLetters)
	f.Fuzz(func(t *testing.T, body []byte, letters string) {
		ids, err := Parse(body, letters)
		if err != nil {
			if e, ok := azerr.As(err); !ok || e.Status != http.StatusBadRequest {
				t.Fatalf("%v is not a 400 Azure error", err)
			}
			return
		}
		if len(ids) > MaxIdentifiers {
			t.Fatalf("%d identifiers accepted", len(ids))
		}
		rendered := AppendXML(nil, ids)
		again, err := Parse(rendered, letters)
		if err != nil || len(again) != len(ids) {
			t.Fatalf("rendered %s does not parse back: %v", rendered, err)
		}
		if !bytes.Equal(AppendXML(nil, again), rendered) {
			t.Fatalf("second rendering differs from the first: %s", rendered)
		}
	})
}
