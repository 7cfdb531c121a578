package queue

import (
	"encoding/hex"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

func timePtr(t time.Time) *time.Time { return &t }

// goldenQueue is the queue of testdata/queue_record_v1.json, which the
// JSON format's encoder wrote: metadata, and policies that set every field,
// none, and the epoch and year 9999 as instants.
func goldenQueue() queueRecord {
	return queueRecord{Meta: metadata.Set{{Name: "alpha", Value: "1"}}, ACL: []accesspolicy.Identifier{
		{ID: "full", Start: timePtr(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)),
			Expiry: timePtr(time.Date(2030, 1, 3, 3, 4, 5, 123456700, time.UTC)), Permission: "raup"},
		{ID: "bare"},
		{ID: "edges", Start: timePtr(time.Unix(0, 0).UTC()), Expiry: timePtr(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC))},
		{ID: "perm only", Permission: "r"},
	}}
}

// goldenQueueACL is the Get Queue ACL body of goldenQueue, as the JSON
// format's code answered it.
const goldenQueueACL = `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers>` +
	`<SignedIdentifier><Id>full</Id><AccessPolicy><Start>2030-01-02T03:04:05.0000000Z</Start>` +
	`<Expiry>2030-01-03T03:04:05.1234567Z</Expiry><Permission>raup</Permission></AccessPolicy></SignedIdentifier>` +
	`<SignedIdentifier><Id>bare</Id></SignedIdentifier>` +
	`<SignedIdentifier><Id>edges</Id><AccessPolicy><Start>1970-01-01T00:00:00.0000000Z</Start>` +
	`<Expiry>9999-12-31T23:59:59.0000000Z</Expiry></AccessPolicy></SignedIdentifier>` +
	`<SignedIdentifier><Id>perm only</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier>` +
	`</SignedIdentifiers>`

// storedQueue is goldenQueue as queueFormat first wrote it: stored
// records must keep decoding to the same queue.
const storedQueue = "0201090105616c70686101310240040466756c6c03cad4ea8d0e00ca9af58d0ebc99ef3a047261757004626172650000056564676573" +
	"030000fe85a2ffdf0e0000097065726d206f6e6c79000172"

// TestQueueRecordMigration: a queue stored in the JSON format reads as the
// same queue and answers Get Queue ACL with the same XML; written again it
// is in queueFormat and reads back the same.
func TestQueueRecordMigration(t *testing.T) {
	stored, err := os.ReadFile("testdata/queue_record_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	q, err := decodeQueue(stored)
	if err != nil || !reflect.DeepEqual(q, goldenQueue()) {
		t.Fatalf("decoded to %+v (%v)\nwant %+v", q, err, goldenQueue())
	}
	if got := string(appendACL(nil, q.ACL)); got != goldenQueueACL {
		t.Fatalf("Get Queue ACL renders\n%s\nwant\n%s", got, goldenQueueACL)
	}
	rewritten := q.encode()
	if rewritten[0] != queueFormat {
		t.Fatalf("written again as %q", rewritten)
	}
	again, err := decodeQueue(rewritten)
	if err != nil || string(appendACL(nil, again.ACL)) != goldenQueueACL || !again.Meta.Equal(q.Meta) {
		t.Fatalf("rewritten queue decodes to %+v (%v)", again, err)
	}
}

func TestQueueRecordKeepsItsEncoding(t *testing.T) {
	if got := hex.EncodeToString(goldenQueue().encode()); got != storedQueue {
		t.Errorf("encodes to\n%s\nwant\n%s", got, storedQueue)
	}
	b, _ := hex.DecodeString(storedQueue)
	if got, err := decodeQueue(b); err != nil || !reflect.DeepEqual(got, goldenQueue()) {
		t.Fatalf("decoded to %+v (%v)", got, err)
	}
}

func TestQueueRecordRejectsMalformed(t *testing.T) {
	for _, stored := range []string{"", "\x07", "\x02\x02\x05", `{"v":2}`, `{"v":1,"acl":7}`, "{"} {
		if q, err := decodeQueue([]byte(stored)); err == nil {
			t.Errorf("%q decoded to %+v", stored, q)
		}
	}
}
