package blob

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func batchBody(boundary string, parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		fmt.Fprintf(&b, "--%s\r\nContent-Type: application/http\r\nContent-ID: %d\r\n\r\n%s\r\n", boundary, i, p)
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.String()
}

func TestSplitBatch(t *testing.T) {
	body := batchBody("b1",
		"DELETE /c/x HTTP/1.1\r\nx-ms-date: now\r\nContent-Length: 0\r\n\r\n",
		"PUT /acct/c/y%20z?comp=tier HTTP/1.1\r\nx-ms-access-tier: Cool\r\n\r\n",
		"GET /c/z HTTP/1.1\r\n\r\n")
	subs, err := splitBatch([]byte(body), "b1")
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 3 || subs[1].contentID != "1" || subs[1].req.URL.Path != "/acct/c/y z" ||
		subs[1].req.Header.Get("x-ms-access-tier") != "Cool" {
		t.Fatalf("parsed %+v", subs)
	}
	kinds := []batchKind{subs[0].kind(), subs[1].kind(), subs[2].kind()}
	if kinds[0] != kindDelete || kinds[1] != kindSetTier || kinds[2] != kindOther {
		t.Fatalf("kinds %v", kinds)
	}
	if err := sameKind(subs); err == nil {
		t.Fatal("a delete and a tier change passed as one kind")
	}
	// 256 parts are fine, 257 are not.
	parts := make([]string, 257)
	for i := range parts {
		parts[i] = "DELETE /c/x HTTP/1.1\r\n\r\n"
	}
	if subs, err := splitBatch([]byte(batchBody("b", parts[:256]...)), "b"); err != nil || len(subs) != 256 {
		t.Fatalf("256 parts: %d, %v", len(subs), err)
	}
	_, err = splitBatch([]byte(batchBody("b", parts...)), "b")
	if !azerr.Is(err, azerr.ExceedsMaxBatchRequestCount) {
		t.Fatalf("257 parts: %v", err)
	}
	for _, bad := range []string{"not a request", "DELETE\r\n\r\n"} {
		if _, err := splitBatch([]byte(batchBody("b", bad)), "b"); !errors.Is(err, errBatchBody) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// jsBatchBody is a body as the JavaScript SDK's BlobBatchClient writes it:
// each sub-request's headers end with the CRLF of the next delimiter, with
// no blank line of their own. Azure accepts it.
const jsBatchBody = "--batch_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: 0\r\n\r\n" +
	"DELETE /container/a.txt HTTP/1.1\r\nx-ms-date: Tue, 24 Nov 2026 14:00:00 GMT\r\nAuthorization: SharedKey devstoreaccount1:c2ln\r\n" +
	"--batch_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: 1\r\n\r\n" +
	"DELETE /container/b.txt HTTP/1.1\r\nx-ms-date: Tue, 24 Nov 2026 14:00:00 GMT\r\n" +
	"--batch_1--\r\n"

func TestSplitBatchWithoutBlankLineAfterHeaders(t *testing.T) {
	subs, err := splitBatch([]byte(jsBatchBody), "batch_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 2 || subs[0].req.URL.Path != "/container/a.txt" || subs[1].contentID != "1" ||
		subs[0].req.Header.Get("Authorization") != "SharedKey devstoreaccount1:c2ln" || subs[1].req.Header.Get("x-ms-date") == "" {
		t.Fatalf("parsed %+v", subs)
	}
}

func FuzzSplitBatch(f *testing.F) {
	f.Add(strings.ReplaceAll(jsBatchBody, "batch_1", "b"))
	f.Add("--b\r\n\r\nDELETE /c/x HTTP/1.1\r\n--b--")
	f.Add("--b\r\n\r\nDELETE /c/x HTTP/1.1\nHost: x\n--b--")
	f.Add(batchBody("b", "DELETE /c/x HTTP/1.1\r\n\r\n"))
	f.Add(batchBody("b", "PUT /c/x?comp=tier HTTP/1.1\r\nx-ms-access-tier: Hot\r\n\r\n", "DELETE /c/y HTTP/1.1\r\n\r\n"))
	f.Add("--b\r\n\r\n--b--")
	f.Add("")
	f.Fuzz(func(t *testing.T, body string) {
		subs, err := splitBatch([]byte(body), "b")
		if err != nil {
			if !errors.Is(err, errBatchBody) && !azerr.Is(err, azerr.ExceedsMaxBatchRequestCount) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if len(subs) > maxBatchRequests {
			t.Fatalf("%d sub-requests", len(subs))
		}
		for _, s := range subs {
			s.kind()
		}
	})
}
