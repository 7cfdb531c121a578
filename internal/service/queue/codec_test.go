package queue

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

func TestReceiptRoundTrip(t *testing.T) {
	for _, r := range []receipt{{}, {VisibleAt: 1, Seq: 2, Nonce: 3}, {math.MaxUint64, math.MaxUint64, math.MaxUint64}} {
		s := r.String()
		if strings.ContainsAny(s, "+/=") {
			t.Errorf("receipt %q is not URL-safe", s)
		}
		got, err := parseReceipt(s)
		if err != nil || got != r {
			t.Errorf("parseReceipt(%q) = %+v, %v; want %+v", s, got, err, r)
		}
	}
}

func TestParseReceiptMalformed(t *testing.T) {
	good := receipt{VisibleAt: 10, Seq: 20, Nonce: 30}.String()
	for _, s := range []string{"", "abc", good[:len(good)-1], good + "A", "AgAAAAMAAAAAAAAAmIzT5EHQ2QE=",
		strings.Repeat("*", len(good)), "Ag" + good[2:]} {
		_, err := parseReceipt(s)
		if !azerr.Is(err, azerr.InvalidQueryParameterValue) {
			t.Errorf("parseReceipt(%q) = %v, want InvalidQueryParameterValue", s, err)
			continue
		}
		if detail(err, "QueryParameterName") != "popreceipt" || detail(err, "Reason") != "invalid receipt format" {
			t.Errorf("parseReceipt(%q) details = %+v", s, err)
		}
	}
}

func FuzzParseReceipt(f *testing.F) {
	f.Add(receipt{VisibleAt: 1, Seq: 2, Nonce: 3}.String())
	f.Add("")
	f.Add("AgAAAAMAAAAAAAAAmIzT5EHQ2QE=")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseReceipt(s)
		if err != nil {
			return
		}
		// Only canonical receipts are accepted, so a parsed one renders back
		// to the same text.
		if r.String() != s {
			t.Fatalf("parseReceipt(%q) accepted a non-canonical receipt (renders %q)", s, r.String())
		}
	})
}

func TestIDRoundTrip(t *testing.T) {
	seen := map[[idLen]byte]bool{}
	for i := 0; i < 100; i++ {
		id := guid.NewRaw()
		if seen[id] {
			t.Fatal("duplicate id")
		}
		seen[id] = true
		s := guid.Format(id)
		if len(s) != 36 || s[14] != '4' {
			t.Fatalf("formatID = %q, want a version 4 GUID", s)
		}
		got, ok := parseID(strings.ToUpper(s))
		if !ok || got != id {
			t.Fatalf("parseID(%q) = %x, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "not-a-guid", "0123456789abcdef0123456789abcdef", "0123456g-89ab-cdef-0123-456789abcdef",
		"01234567-89ab-cdef-0123-456789abcdef0"} {
		if _, ok := parseID(s); ok {
			t.Errorf("parseID(%q) accepted", s)
		}
	}
}

func FuzzParseID(f *testing.F) {
	id := guid.NewRaw()
	f.Add(guid.Format(id))
	f.Add("01234567-89ab-cdef-0123-456789abcdef")
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := parseID(s)
		if ok && !strings.EqualFold(guid.Format(id), s) {
			t.Fatalf("parseID(%q) round-trips to %q", s, guid.Format(id))
		}
	})
}

func TestMessageRecordRoundTrip(t *testing.T) {
	prefix := msgPrefix("acct", "queue")
	m := message{VisibleAt: 123, Seq: 456, ID: guid.NewRaw(), Inserted: 7, Expires: neverExpires, Nonce: 99, Dequeues: 3,
		Text: []byte("hello\x00world")}
	var got message
	if err := decodeKey(msgKey(prefix, m.VisibleAt, m.Seq, &m.ID), len(prefix), &got); err != nil {
		t.Fatal(err)
	}
	if err := decodeValue(encodeValue(&m), &got); err != nil {
		t.Fatal(err)
	}
	if got.VisibleAt != m.VisibleAt || got.Seq != m.Seq || got.ID != m.ID || got.Inserted != m.Inserted ||
		got.Expires != m.Expires || got.Nonce != m.Nonce || got.Dequeues != m.Dequeues || !bytes.Equal(got.Text, m.Text) {
		t.Fatalf("round trip: got %+v, want %+v", got, m)
	}
	if decodeValue([]byte{msgFormat}, &got) == nil || decodeValue(append([]byte{9}, make([]byte, msgHeaderLen)...), &got) == nil {
		t.Fatal("malformed values accepted")
	}
	if decodeKey(prefix, len(prefix), &got) == nil {
		t.Fatal("short key accepted")
	}
}

// Messages sort by visibility, then insertion, then id; and every message of
// a queue stays inside its prefix, apart from other queues' messages.
func TestMessageKeyOrder(t *testing.T) {
	prefix := msgPrefix("acct", "q")
	lo, hi := [idLen]byte{}, [idLen]byte{0xff}
	ordered := [][]byte{
		msgKey(prefix, 1, 5, &hi),
		msgKey(prefix, 2, 1, &hi),
		msgKey(prefix, 2, 2, &lo),
		msgKey(prefix, 2, 2, &hi),
		msgKey(prefix, math.MaxUint64, 0, &lo),
	}
	for i := 1; i < len(ordered); i++ {
		if bytes.Compare(ordered[i-1], ordered[i]) >= 0 {
			t.Fatalf("key %d does not sort before key %d", i-1, i)
		}
	}
	other := msgPrefix("acct", "q2")
	if bytes.HasPrefix(other, prefix) || bytes.HasPrefix(msgKey(other, 0, 0, &lo), prefix) {
		t.Fatal("queue q2's messages fall inside queue q's range")
	}
	end := visibleBefore(prefix, 2)
	if bytes.Compare(msgKey(prefix, 2, math.MaxUint64, &hi), end) >= 0 || bytes.Compare(msgKey(prefix, 3, 0, &lo), end) < 0 {
		t.Fatal("visibleBefore does not bound the messages visible at now")
	}
}

func TestValueExpired(t *testing.T) {
	m := message{Expires: 100}
	v := encodeValue(&m)
	if valueExpired(v, 99) || !valueExpired(v, 100) || !m.expired(100) {
		t.Fatal("expiry boundary wrong")
	}
	m.Expires = neverExpires
	if valueExpired(encodeValue(&m), math.MaxUint64-1) {
		t.Fatal("a never-expiring message expired")
	}
}

func TestNextSeqIncreases(t *testing.T) {
	now := time.Now()
	a, b := nextSeq(now), nextSeq(now)
	if b <= a {
		t.Fatalf("nextSeq did not increase at a fixed time: %d then %d", a, b)
	}
	if c := nextSeq(now.Add(-time.Hour)); c <= b {
		t.Fatalf("nextSeq went back with the clock: %d after %d", c, b)
	}
}

// Queue records the JSON format stored must decode to the same state, and
// keep it when written again in queueFormat.
func TestQueueRecordStoredJSON(t *testing.T) {
	for stored, want := range map[string]metadata.Set{
		`{"v":1,"meta":[["alpha","1"],["beta",""]]}`: {{Name: "alpha", Value: "1"}, {Name: "beta", Value: ""}},
		`{"v":1}`: nil,
	} {
		q, err := decodeQueue([]byte(stored))
		if err != nil || !q.Meta.Equal(want) || (want == nil) != (q.Meta == nil) {
			t.Fatalf("%s decoded to %+v (%v)", stored, q, err)
		}
		again, err := decodeQueue(q.encode())
		if err != nil || !again.Meta.Equal(want) || (want == nil) != (again.Meta == nil) {
			t.Fatalf("%s written again decodes to %+v (%v)", stored, again, err)
		}
	}
}
