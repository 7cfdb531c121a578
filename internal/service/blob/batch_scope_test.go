package blob_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// The JavaScript SDK's BlobBatchClient, made from a path-style service URL,
// takes the account segment for a container and sends
// POST /<account>?restype=container&comp=batch. Azure never sees that form
// (its URLs name the account in the host) and Azurite serves it as the
// service's batch, so Lazuli does too.
func TestBlobBatchAtAccountPathWithContainerRestype(t *testing.T) {
	e := start(t)
	c := e.container("jsbatch")
	e.upload(c, "a", []byte("a"))
	e.upload(c, "b", []byte("b"))
	url := strings.TrimSuffix(e.in.BlobURL, "/") + "?comp=batch&restype=container"
	r := rawBatch(t, e, url, nil, []subReq{
		{method: "DELETE", path: "jsbatch/a"},
		{method: "DELETE", path: "jsbatch/b"},
	})
	if got := batchAnswers(t, r); fmt.Sprint(got) != "[202 202]" {
		t.Fatalf("answers %v (status %d %s)", got, r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
}

// Sub-responses spell the service's headers as the service does,
// "x-ms-error-code" in lower case: the JavaScript SDK's batch parser
// compares header names case-sensitively and counts a sub-response without
// that exact name as a success.
func TestBlobBatchSubResponseHeaderNames(t *testing.T) {
	e := start(t)
	c := e.container("names")
	e.upload(c, "a", []byte("a"))
	r := rawBatch(t, e, e.in.BlobURL+"?comp=batch", nil, []subReq{
		{method: "DELETE", path: "names/a"},
		{method: "DELETE", path: "names/missing"},
	})
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\r\nx-ms-error-code: BlobNotFound\r\n", "\r\nx-ms-request-id: ", "\r\nx-ms-version: "} {
		if !strings.Contains(string(body), want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}

// syncBuffer is a bytes.Buffer the server's goroutines may log into.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Sub-requests are served through the server chain as requests of their
// own: each has its own request id, echoes its client request id, takes
// the batch's version, and is routed and logged under its own operation.
// Their parts carry no Date or Server header (the batch's response does).
func TestBlobBatchSubRequestsGoThroughTheChain(t *testing.T) {
	logged := &syncBuffer{}
	e := startWith(t, lazulitest.Options{InMemory: true, AccessLog: slog.New(slog.NewJSONHandler(logged, nil))})
	c := e.container("chain")
	e.upload(c, "a", []byte("a"))
	e.upload(c, "b", []byte("b"))
	r := rawBatch(t, e, e.in.BlobURL+"?comp=batch", nil, []subReq{
		{method: "DELETE", path: "chain/a", header: http.Header{"X-Ms-Client-Request-Id": {"sub-a"}}},
		{method: "DELETE", path: "chain/b"},
	})
	batchID := r.Header.Get("x-ms-request-id")
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var ids []string
	for i := 0; ; i++ {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sub, err := http.ReadResponse(bufio.NewReader(part), nil)
		if err != nil {
			t.Fatal(err)
		}
		id := sub.Header.Get("x-ms-request-id")
		if sub.StatusCode != http.StatusAccepted || id == "" || id == batchID || slices.Contains(ids, id) {
			t.Fatalf("part %d: %d with request id %q (batch %q, before %v)", i, sub.StatusCode, id, batchID, ids)
		}
		ids = append(ids, id)
		if v := sub.Header.Get("x-ms-version"); v != "2025-01-05" {
			t.Errorf("part %d: version %q, want the batch's", i, v)
		}
		if want := map[int]string{0: "sub-a"}[i]; sub.Header.Get("x-ms-client-request-id") != want {
			t.Errorf("part %d: client request id %q, want %q", i, sub.Header.Get("x-ms-client-request-id"), want)
		}
		if sub.Header.Get("Date") != "" || sub.Header.Get("Server") != "" {
			t.Errorf("part %d carries Date or Server: %v", i, sub.Header)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("%d parts", len(ids))
	}
	for _, id := range ids {
		want := `"request_id":"` + id + `","operation":"DeleteBlob"`
		if !strings.Contains(logged.String(), want) {
			t.Errorf("access log has no %s:\n%s", want, logged.String())
		}
	}
}
