package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	blobsas "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	filesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// secret is the private blob the attacker's SAS does not reach: 512 bytes,
// so that a page or a file range could hold it whole.
var secret = []byte(strings.Repeat("TOP-SECRET-", 46) + "012345")

// victim is a server holding a private blob, and an attacker's narrow
// service SASes (sp=rcw) on their own container and share.
type victim struct {
	in               *lazulitest.Instance
	blobSAS, fileSAS string
	http             *http.Client
}

func startVictim(t *testing.T, allow []string) *victim {
	t.Helper()
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) { c.CopySourceAllow = allow }})
	ctx := context.Background()
	blobs, err := azblob.NewClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"private", "attacker"} {
		if _, err := blobs.CreateContainer(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := blobs.UploadBuffer(ctx, "private", "secret.txt", secret, nil); err != nil {
		t.Fatal(err)
	}
	files, err := service.NewClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := files.NewShareClient("attacker").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	expiry := in.Clock.Now().Add(time.Hour)
	blobCred, _ := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	bq, err := blobsas.BlobSignatureValues{Protocol: blobsas.ProtocolHTTPSandHTTP, ExpiryTime: expiry, ContainerName: "attacker",
		Permissions: (&blobsas.ContainerPermissions{Read: true, Create: true, Write: true}).String()}.SignWithSharedKey(blobCred)
	if err != nil {
		t.Fatal(err)
	}
	fileCred, _ := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	fq, err := filesas.SignatureValues{Protocol: filesas.ProtocolHTTPSandHTTP, ExpiryTime: expiry, ShareName: "attacker",
		Permissions: (&filesas.SharePermissions{Read: true, Create: true, Write: true}).String()}.SignWithSharedKey(fileCred)
	if err != nil {
		t.Fatal(err)
	}
	return &victim{in: in, blobSAS: bq.Encode(), fileSAS: fq.Encode(), http: &http.Client{Timeout: 2 * time.Minute}}
}

// send sends an attacker's request under their SAS and returns the status,
// the error code and the body.
func (v *victim) send(t *testing.T, method, base, name, query string, header map[string]string) (int, string, []byte) {
	t.Helper()
	sas := v.blobSAS
	if base == v.in.FileURL {
		sas = v.fileSAS
	}
	if query != "" {
		query += "&"
	}
	req, err := http.NewRequest(method, base+"attacker/"+name+"?"+query+sas, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-version", "2025-01-05")
	for k, val := range header {
		req.Header.Set(k, val)
	}
	resp, err := v.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("x-ms-error-code"), body
}

// mustSend is send that fails the test on an answer that is not 2xx.
func (v *victim) mustSend(t *testing.T, method, base, name, query string, header map[string]string) []byte {
	t.Helper()
	status, code, body := v.send(t, method, base, name, query, header)
	if status/100 != 2 {
		t.Fatalf("%s %s%s?%s: %d %s", method, base, name, query, status, code)
	}
	return body
}

// copyOp is one operation that makes the server fetch x-ms-copy-source.
type copyOp struct {
	name  string
	file  bool // a File service operation, whose source must be on the request's host
	async bool
	// prepare creates the destination the operation writes into.
	prepare func(t *testing.T, v *victim, dest string)
	// copy sends the operation with src as x-ms-copy-source.
	copy func(t *testing.T, v *victim, dest, src string) (int, string)
	// held is what the destination holds afterwards: its readable bytes
	// (committing what a staged block would hold), nil when it is absent.
	held func(t *testing.T, v *victim, dest string) []byte
}

var blockID = base64.StdEncoding.EncodeToString([]byte("block-0001"))

func (v *victim) blobPut(t *testing.T, dest, query string, header map[string]string) (int, string) {
	status, code, _ := v.send(t, http.MethodPut, v.in.BlobURL, dest, query, header)
	return status, code
}

func (v *victim) fileGot(t *testing.T, dest string) []byte {
	status, _, body := v.send(t, http.MethodGet, v.in.FileURL, dest, "", nil)
	if status == http.StatusNotFound {
		return nil
	}
	return body
}

func (v *victim) blobGot(t *testing.T, dest string) []byte {
	status, _, body := v.send(t, http.MethodGet, v.in.BlobURL, dest, "", nil)
	if status == http.StatusNotFound {
		return nil
	}
	return body
}

func blobHeld(t *testing.T, v *victim, dest string) []byte { return v.blobGot(t, dest) }

func copyOps() []copyOp {
	noPrepare := func(*testing.T, *victim, string) {}
	createBlob := func(kind string, extra map[string]string) func(*testing.T, *victim, string) {
		return func(t *testing.T, v *victim, dest string) {
			h := map[string]string{"x-ms-blob-type": kind}
			for k, val := range extra {
				h[k] = val
			}
			v.mustSend(t, http.MethodPut, v.in.BlobURL, dest, "", h)
		}
	}
	createFile := func(t *testing.T, v *victim, dest string) {
		v.mustSend(t, http.MethodPut, v.in.FileURL, dest, "", map[string]string{"x-ms-type": "file", "x-ms-content-length": "512"})
	}
	return []copyOp{
		{name: "Copy Blob", async: true, prepare: noPrepare, held: blobHeld,
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				return v.blobPut(t, dest, "", map[string]string{"x-ms-copy-source": src})
			}},
		{name: "Copy Blob From URL", prepare: noPrepare, held: blobHeld,
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				return v.blobPut(t, dest, "", map[string]string{"x-ms-copy-source": src, "x-ms-requires-sync": "true"})
			}},
		{name: "Put Blob From URL", prepare: noPrepare, held: blobHeld,
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				return v.blobPut(t, dest, "", map[string]string{"x-ms-copy-source": src, "x-ms-blob-type": "BlockBlob"})
			}},
		{name: "Put Block From URL", prepare: noPrepare,
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				return v.blobPut(t, dest, "comp=block&blockid="+strings.ReplaceAll(blockID, "=", "%3D"), map[string]string{"x-ms-copy-source": src})
			},
			held: func(t *testing.T, v *victim, dest string) []byte {
				list := "<BlockList><Latest>" + blockID + "</Latest></BlockList>"
				req, _ := http.NewRequest(http.MethodPut, v.in.BlobURL+"attacker/"+dest+"?comp=blocklist&"+v.blobSAS, strings.NewReader(list))
				req.Header.Set("x-ms-version", "2025-01-05")
				if resp, err := v.http.Do(req); err == nil {
					resp.Body.Close()
				}
				return v.blobGot(t, dest)
			}},
		{name: "Put Page From URL", held: blobHeld,
			prepare: createBlob("PageBlob", map[string]string{"x-ms-blob-content-length": "512"}),
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				return v.blobPut(t, dest, "comp=page", map[string]string{"x-ms-copy-source": src, "x-ms-page-write": "update",
					"x-ms-range": "bytes=0-511", "x-ms-source-range": "bytes=0-511"})
			}},
		{name: "Append Block From URL", held: blobHeld, prepare: createBlob("AppendBlob", nil),
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				return v.blobPut(t, dest, "comp=appendblock", map[string]string{"x-ms-copy-source": src})
			}},
		{name: "Put Range From URL", file: true, prepare: createFile,
			held: func(t *testing.T, v *victim, dest string) []byte { return v.fileGot(t, dest) },
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				status, code, _ := v.send(t, http.MethodPut, v.in.FileURL, dest, "comp=range", map[string]string{"x-ms-copy-source": src,
					"x-ms-write": "update", "x-ms-range": "bytes=0-511", "x-ms-source-range": "bytes=0-511"})
				return status, code
			}},
		{name: "Copy File", file: true, async: true, prepare: noPrepare,
			held: func(t *testing.T, v *victim, dest string) []byte { return v.fileGot(t, dest) },
			copy: func(t *testing.T, v *victim, dest, src string) (int, string) {
				status, code, _ := v.send(t, http.MethodPut, v.in.FileURL, dest, "", map[string]string{"x-ms-copy-source": src})
				return status, code
			}},
	}
}

// nonStorageSources are URLs of the server's admin and SMB listeners, by
// every address that reaches them, and through a redirect; file marks
// those the File service's same-host rule lets through to the fetch.
func nonStorageSources(t *testing.T, in *lazulitest.Instance) []struct {
	name, url string
	file      bool
} {
	t.Helper()
	if in.AdminURL == "" || in.SMBAddr == "" {
		t.Fatalf("admin %q, SMB %q: the test needs both listeners", in.AdminURL, in.SMBAddr)
	}
	adminPort := in.AdminURL[strings.LastIndex(in.AdminURL, ":")+1:]
	download := "/api/download?account=" + lazulitest.Account + "&container=private&blob=secret.txt"
	redirector := httptest.NewServer(http.RedirectHandler(in.AdminURL+download, http.StatusFound))
	t.Cleanup(redirector.Close)
	return []struct {
		name, url string
		file      bool
	}{
		{"admin download", in.AdminURL + download, true},
		{"admin download by localhost", "http://localhost:" + adminPort + download, false},
		{"admin download by mapped IPv6", "http://[::ffff:127.0.0.1]:" + adminPort + download, false},
		{"admin overview", in.AdminURL + "/api/overview", true},
		{"admin metrics", in.AdminURL + "/metrics", true},
		{"SMB listener", "http://" + in.SMBAddr + "/" + lazulitest.Account + "/private/secret.txt", true},
		{"redirect to admin download", redirector.URL + "/" + lazulitest.Account + "/c/b", true},
	}
}

// TestNonStorageListenersAreNeverCopySources: an attacker holding a SAS
// for their own container only (sp=rcw) points every copy operation at the
// admin listener (/api/download of a private blob, /api/overview,
// /metrics) and at the SMB listener, by each address that reaches them and
// through a redirect, under the default policy and under
// --copySourceAllow "*". Each is refused as a source the policy does not
// allow (403 CannotVerifyCopySource) and the destination holds nothing.
func TestNonStorageListenersAreNeverCopySources(t *testing.T) {
	for _, allow := range [][]string{nil, {"*"}} {
		t.Run(fmt.Sprintf("copySourceAllow=%q", allow), func(t *testing.T) {
			v := startVictim(t, allow)
			n := 0
			for _, src := range nonStorageSources(t, v.in) {
				for _, op := range copyOps() {
					if op.file && !src.file {
						continue
					}
					n++
					dest := fmt.Sprintf("dest%d", n)
					op.prepare(t, v, dest)
					status, code := op.copy(t, v, dest, src.url)
					if status != http.StatusForbidden || code != "CannotVerifyCopySource" {
						t.Errorf("%s from %s: %d %s, want 403 CannotVerifyCopySource", op.name, src.name, status, code)
					}
					// Nothing was copied: the destination is absent, or holds the
					// zeros or nothing it was created with.
					if held := op.held(t, v, dest); len(bytes.Trim(held, "\x00")) > 0 {
						t.Errorf("%s from %s: the destination holds %d copied bytes: %.60q", op.name, src.name, len(held), held)
					}
				}
			}
			t.Logf("%d refused copies", n)
		})
	}
}

// TestStorageListenersStayCopySources: the Blob service still reads a
// file of this server's File listener, and the File service a blob of its
// Blob listener, over HTTP with a SAS.
func TestStorageListenersStayCopySources(t *testing.T) {
	v := startVictim(t, nil)
	ctx := context.Background()
	src, err := file.NewClientFromConnectionString(v.in.ConnectionString, "attacker", "source.bin", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Create(ctx, int64(len(secret)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := src.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(secret)), nil); err != nil {
		t.Fatal(err)
	}
	fileSource := v.in.FileURL + "attacker/source.bin?" + v.fileSAS
	v.mustSend(t, http.MethodPut, v.in.BlobURL, "from-file", "", map[string]string{"x-ms-copy-source": fileSource, "x-ms-requires-sync": "true"})
	if got := v.blobGot(t, "from-file"); !bytes.Equal(got, secret) {
		t.Fatalf("Copy Blob From URL of a File listener source: %d bytes, want the file's %d", len(got), len(secret))
	}
	blobSource := v.in.BlobURL + "attacker/from-file?" + v.blobSAS
	v.mustSend(t, http.MethodPut, v.in.FileURL, "from-blob", "", map[string]string{"x-ms-type": "file", "x-ms-content-length": "512"})
	v.mustSend(t, http.MethodPut, v.in.FileURL, "from-blob", "comp=range", map[string]string{"x-ms-copy-source": blobSource,
		"x-ms-write": "update", "x-ms-range": "bytes=0-511", "x-ms-source-range": "bytes=0-511"})
	if got := v.fileGot(t, "from-blob"); !bytes.Equal(got, secret) {
		t.Fatalf("Put Range From URL of a Blob listener source: %d bytes, want the blob's %d", len(got), len(secret))
	}
}
