package blob_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestBlobBatch256Deletes: the largest batch, 256 deletes, each answered
// 202 on its own and each blob gone.
func TestBlobBatch256Deletes(t *testing.T) {
	e := start(t)
	c := e.container("batch")
	bb, err := e.svc.NewBatchBuilder()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 256; i++ {
		name := fmt.Sprintf("blob %03d", i)
		e.upload(c, name, []byte(name))
		if err := bb.Delete("batch", name, nil); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := e.svc.SubmitBatch(e.ctx, bb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Responses) != 256 {
		t.Fatalf("%d answers", len(resp.Responses))
	}
	ids := map[string]bool{}
	for i, r := range resp.Responses {
		if r.Error != nil || *r.ContentID != i || r.RequestID == nil || ids[*r.RequestID] {
			t.Fatalf("answer %d: %+v %v", i, r, r.Error)
		}
		ids[*r.RequestID] = true
	}
	if left := e.listAll(c, container.ListBlobsInclude{}, 0); len(left) != 0 {
		t.Fatalf("%d blobs survived", len(left))
	}
	// One more than the limit fails the whole batch.
	bb, _ = e.svc.NewBatchBuilder()
	for i := 0; i < 257; i++ {
		_ = bb.Delete("batch", fmt.Sprint(i), nil)
	}
	_, err = e.svc.SubmitBatch(e.ctx, bb, nil)
	wantCode(t, err, 400, "ExceedsMaxBatchRequestCount")
}

func TestBlobBatchPartialFailureAndContainerScope(t *testing.T) {
	e := start(t)
	c := e.container("mixed")
	e.upload(c, "a", []byte("a"))
	e.upload(c, "b", []byte("b"))
	bb, _ := c.NewBatchBuilder()
	for _, name := range []string{"a", "missing", "b"} {
		_ = bb.Delete(name, nil)
	}
	resp, err := c.SubmitBatch(e.ctx, bb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Responses[0].Error != nil || resp.Responses[2].Error != nil {
		t.Fatalf("good deletes failed: %v %v", resp.Responses[0].Error, resp.Responses[2].Error)
	}
	wantCode(t, resp.Responses[1].Error, 404, "BlobNotFound")
	// A leased blob in a batch needs its lease ID like a lone delete.
	e.upload(c, "leased", []byte("l"))
	h := http.Header{"x-ms-lease-action": {"acquire"}, "x-ms-lease-duration": {"-1"}}
	if r := e.raw(http.MethodPut, "mixed/leased?comp=lease", h, nil); r.StatusCode != 201 {
		t.Fatalf("acquire: %d", r.StatusCode)
	}
	sb, _ := e.svc.NewBatchBuilder()
	_ = sb.Delete("mixed", "leased", nil)
	sresp, err := e.svc.SubmitBatch(e.ctx, sb, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, sresp.Responses[0].Error, 412, "LeaseIdMissing")
}

func TestBlobBatchSetTier(t *testing.T) {
	e := start(t)
	c := e.container("tiers")
	for _, n := range []string{"x", "y"} {
		e.upload(c, n, []byte(n))
	}
	bb, _ := e.svc.NewBatchBuilder()
	_ = bb.SetTier("tiers", "x", blob.AccessTierCool, nil)
	_ = bb.SetTier("tiers", "y", blob.AccessTierCool, nil)
	resp, err := e.svc.SubmitBatch(e.ctx, bb, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range resp.Responses {
		if r.Error != nil {
			t.Fatalf("set tier %d: %v", i, r.Error)
		}
	}
	for _, n := range []string{"x", "y"} {
		props, err := c.NewBlobClient(n).GetProperties(e.ctx, nil)
		if err != nil || *props.AccessTier != string(blob.AccessTierCool) {
			t.Fatalf("%s: %v tier %v", n, err, props.AccessTier)
		}
	}
}

// accountSASService is a service client holding only an account SAS.
func accountSASService(t *testing.T, e *env, perms sas.AccountPermissions) *service.Client {
	t.Helper()
	cred, _ := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	q, err := sas.AccountSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour), Permissions: perms.String(),
		ResourceTypes: (&sas.AccountResourceTypes{Service: true, Container: true, Object: true}).String(),
	}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.NewClientWithNoCredential(e.in.BlobURL+"?"+q.Encode(), clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// TestBlobBatchAuthorizesEachSubRequest: sub-requests carry their own SAS
// and are authorized one by one.
func TestBlobBatchAuthorizesEachSubRequest(t *testing.T) {
	e := start(t)
	c := e.container("sas")
	e.upload(c, "a", []byte("a"))
	e.upload(c, "b", []byte("b"))
	readOnly := accountSASService(t, e, sas.AccountPermissions{Read: true, List: true})
	bb, _ := readOnly.NewBatchBuilder()
	_ = bb.Delete("sas", "a", nil)
	resp, err := readOnly.SubmitBatch(e.ctx, bb, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, resp.Responses[0].Error, 403, "AuthorizationPermissionMismatch")
	deleter := accountSASService(t, e, sas.AccountPermissions{Read: true, Delete: true})
	bb, _ = deleter.NewBatchBuilder()
	_ = bb.Delete("sas", "a", nil)
	resp, err = deleter.SubmitBatch(e.ctx, bb, nil)
	if err != nil || resp.Responses[0].Error != nil {
		t.Fatalf("delete with d: %v %v", err, resp.Responses[0].Error)
	}
	// A service SAS of a container cannot send an account-level batch.
	containerSAS := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "sas",
		Permissions: (&sas.ContainerPermissions{Delete: true, Read: true}).String(), ExpiryTime: time.Now().Add(time.Hour)})
	q := containerSAS[strings.Index(containerSAS, "?"):]
	r := rawBatch(t, e, e.in.BlobURL+q+"&comp=batch", nil, []subReq{{method: "DELETE", path: "sas/b" + q}})
	if r.StatusCode != 403 {
		t.Fatalf("account batch with a container SAS: %d", r.StatusCode)
	}
}

// subReq is one hand-built sub-request: signed with the account key unless
// auth is set.
type subReq struct {
	method, path, auth string
	header             http.Header
}

// rawBatch posts a hand-built batch body, signed with Shared Key unless
// the URL carries a SAS.
func rawBatch(t *testing.T, e *env, target string, header http.Header, subs []subReq) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for i, s := range subs {
		part, err := mw.CreatePart(map[string][]string{"Content-Type": {"application/http"},
			"Content-Transfer-Encoding": {"binary"}, "Content-ID": {fmt.Sprint(i)}})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(s.method, e.in.BlobURL+s.path, nil)
		for k, v := range s.header {
			req.Header[k] = v
		}
		if strings.Contains(s.path, "sig=") {
			req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
		} else {
			signRequest(t, req)
		}
		if s.auth != "" {
			req.Header.Set("Authorization", s.auth)
		}
		fmt.Fprintf(part, "%s %s HTTP/1.1\r\n", s.method, req.URL.RequestURI())
		for k, vs := range req.Header {
			fmt.Fprintf(part, "%s: %s\r\n", k, vs[0])
		}
		fmt.Fprint(part, "\r\n")
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "multipart/mixed; boundary="+mw.Boundary())
	req.Header.Set("x-ms-version", "2025-01-05")
	if !strings.Contains(target, "sig=") {
		signRequest(t, req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// batchAnswers parses a batch response into the status and error code of
// each part, in order.
func batchAnswers(t *testing.T, resp *http.Response) []string {
	t.Helper()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("batch answered %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(resp.Body, params["boundary"])
	var out []string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(part)
		sub, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Header.Get("x-ms-request-id") == "" || sub.Header.Get("x-ms-version") == "" {
			t.Fatalf("sub-response without request id or version: %v", sub.Header)
		}
		out = append(out, strings.TrimSpace(fmt.Sprintf("%d %s", sub.StatusCode, sub.Header.Get("x-ms-error-code"))))
	}
}

func TestBlobBatchRawSubRequests(t *testing.T) {
	e := start(t)
	c := e.container("raw")
	for _, n := range []string{"a", "b", "c", "d"} {
		e.upload(c, n, []byte(n))
	}
	// A forged signature fails alone; the others succeed.
	r := rawBatch(t, e, e.in.BlobURL+"?comp=batch", nil, []subReq{
		{method: "DELETE", path: "raw/a"},
		{method: "DELETE", path: "raw/b", auth: "SharedKey " + lazulitest.Account + ":AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
		{method: "DELETE", path: "raw/c", auth: "-"},
	})
	got := batchAnswers(t, r)
	if fmt.Sprint(got) != "[202 403 AuthenticationFailed 400 InvalidAuthenticationInfo]" {
		t.Fatalf("answers %v", got)
	}
	// Mixed kinds fail the whole batch; so does a body that is not multipart.
	r = rawBatch(t, e, e.in.BlobURL+"?comp=batch", nil, []subReq{
		{method: "DELETE", path: "raw/b"},
		{method: "PUT", path: "raw/c?comp=tier", header: http.Header{"X-Ms-Access-Tier": {"Cool"}}},
	})
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "InvalidInput" {
		t.Fatalf("mixed kinds: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	resp := e.raw(http.MethodPost, "?comp=batch", http.Header{"Content-Type": {"text/plain"}}, []byte("x"))
	if resp.StatusCode != 400 {
		t.Fatalf("plain body: %d", resp.StatusCode)
	}
	// Other operations are refused one by one, and a container's batch
	// takes only its own blobs.
	r = rawBatch(t, e, e.in.BlobURL+"raw?restype=container&comp=batch", nil, []subReq{
		{method: "DELETE", path: "raw/b"},
		{method: "DELETE", path: "other/x"},
		{method: "GET", path: "raw/c"},
	})
	got = batchAnswers(t, r)
	if fmt.Sprint(got) != "[202 400 InvalidInput 400 InvalidInput]" {
		t.Fatalf("container batch answers %v", got)
	}
	// Anonymous batches are refused.
	req, _ := http.NewRequest(http.MethodPost, e.in.BlobURL+"?comp=batch", strings.NewReader(""))
	req.Header.Set("Content-Type", "multipart/mixed; boundary=x")
	anon, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	anon.Body.Close()
	if anon.StatusCode != 401 {
		t.Fatalf("anonymous batch: %d", anon.StatusCode)
	}
}
