package table_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestBatchBoundaryWithEquals: a boundary may hold '=' (RFC 2046 section
// 5.1.1, bchars), and clients send one unquoted, as in Azurite's
// tests/blob/apis/blobbatch.test.ts "SubmitBatch accepts a boundary
// containing equals signs", which appends "==" to the SDK's boundary. The
// Content-Type of an entity group transaction shares that grammar, so such
// a batch, and a changeset boundary of the same form, are read, not refused.
func TestBatchBoundaryWithEquals(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "eqbound")
	const batchB, changeB = "batch_8d5f0a1c==", "changeset_77c1e2==" // unquoted, as sent
	body := "--" + batchB + "\r\nContent-Type: multipart/mixed; boundary=" + changeB + "\r\n\r\n" +
		"--" + changeB + "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"POST " + strings.TrimSuffix(e.in.TableURL, "/") + "/eqbound HTTP/1.1\r\nAccept: application/json;odata=nometadata\r\n" +
		"Content-Type: application/json\r\nPrefer: return-no-content\r\nDataServiceVersion: 3.0;\r\n\r\n" +
		`{"PartitionKey":"p","RowKey":"r","N":1}` + "\r\n--" + changeB + "--\r\n--" + batchB + "--\r\n"
	resp, out := e.raw(t, "POST", "/$batch", http.Header{"Content-Type": {"multipart/mixed; boundary=" + batchB}}, body)
	if resp.StatusCode != http.StatusAccepted || !strings.Contains(out, "HTTP/1.1 204") {
		t.Fatalf("batch: %d %s", resp.StatusCode, out)
	}
	if _, err := tc.GetEntity(e.ctx, "p", "r", nil); err != nil {
		t.Fatalf("entity not written: %v", err)
	}
}
