package queue

import (
	"encoding/json"
	"testing"
	"time"
)

// TestStoredACLReadsAsBefore: queue records keep their stored ACL form, so
// a record written before the shared accesspolicy package reads back the
// same and is written again byte for byte.
func TestStoredACLReadsAsBefore(t *testing.T) {
	stored := `{"v":1,"acl":[{"id":"bare"},{"id":"full","start":"2030-01-02T03:04:05Z","expiry":"2030-01-03T03:04:05.1234567Z","perm":"raup"}]}`
	q, err := decodeQueue([]byte(stored))
	if err != nil {
		t.Fatal(err)
	}
	got := queuePolicies(q.ACL)
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	if len(got) != 2 || got[0].ID != "bare" || got[0].Start != nil || got[1].ID != "full" ||
		!got[1].Start.Equal(start) || got[1].Permission != "raup" {
		t.Fatalf("read back %+v", got)
	}
	q.ACL = queueACL(got)
	again, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != stored {
		t.Fatalf("stored as %s, want %s", again, stored)
	}
}
