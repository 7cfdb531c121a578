package queue_test

import (
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestSetPropertiesEmptyDocument replays the recorded live session of
// azure-sdk-for-python sdk/storage/azure-storage-queue/tests/recordings/
// test_queue_service_properties_async.test_too_many_cors_rules.yaml: a Set
// Queue Service Properties body whose StorageServiceProperties element sets
// nothing is 400 InvalidXmlDocument, and the stored properties stay as they
// were.
func TestSetPropertiesEmptyDocument(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	xml := http.Header{"Content-Type": {"application/xml; charset=utf-8"}}
	_, before := e.raw("GET", "/?restype=service&comp=properties", "", nil)
	for _, body := range []string{
		"<?xml version='1.0' encoding='utf-8'?>\n<StorageServiceProperties />",
		"<StorageServiceProperties></StorageServiceProperties>",
	} {
		resp, got := e.raw("PUT", "/?restype=service&comp=properties", body, xml)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "InvalidXmlDocument" {
			t.Fatalf("%q: %d %s %s", body, resp.StatusCode, resp.Header.Get("x-ms-error-code"), got)
		}
	}
	if _, after := e.raw("GET", "/?restype=service&comp=properties", "", nil); after != before {
		t.Fatalf("properties changed by a refused Set:\n%s\n%s", before, after)
	}
	const logging = "<StorageServiceProperties><Logging><Version>1.0</Version><Delete>true</Delete><Read>false</Read>" +
		"<Write>false</Write><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></Logging></StorageServiceProperties>"
	if resp, got := e.raw("PUT", "/?restype=service&comp=properties", logging, xml); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("one setting: %d %s", resp.StatusCode, got)
	}
}
