package blob_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// TestFromURLSourceOfABearerDestination settles what authorizes a private
// source of the destination's own account for the synchronous from-URL
// operations, by the destination's credential:
//   - Bearer: the caller's own token reads it. azure-sdk-for-js's recorded
//     "syncCopyFromURL - destination bearer token"
//     (sdk/storage/storage-blob/test/blobclient.spec.ts) copies
//     blobClient.url, private and without a SAS, with a token-authorized
//     destination client and gets a copy id; the Put Blob From URL page's
//     how-to ("Copy a blob from a source object URL with .NET",
//     CopyWithinStorageAccountAsync) does the same with a token client.
//   - Shared Key: it does not (azblob's live TestPutBlobFromURLNegative is
//     refused; TestCopyFromURLAndPutFromURL pins it), whatever Azurite's own
//     tests expect of the emulator.
func TestFromURLSourceOfABearerDestination(t *testing.T) {
	certPath, keyPath, pool := selfSignedFiles(t)
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"},
		Configure: func(c *config.Config) { c.Cert, c.Key, c.OAuth = certPath, keyPath, &auth.OAuth{} }})
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	token := bearerToken(t)
	send := func(method, path string, header http.Header) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(context.Background(), method, in.BlobURL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-Ms-Version", "2021-12-02")
		req.Header.Set("X-Ms-Date", time.Now().UTC().Format(http.TimeFormat))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if r := send(http.MethodPut, "bearercopy?restype=container", nil); r.StatusCode != http.StatusCreated {
		t.Fatalf("create container: %d", r.StatusCode)
	}
	if r := send(http.MethodPut, "bearercopy/src", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}); r.StatusCode != http.StatusCreated {
		t.Fatalf("put source: %d", r.StatusCode)
	}
	source := in.BlobURL + "bearercopy/src"

	copied := send(http.MethodPut, "bearercopy/copy", http.Header{"X-Ms-Copy-Source": {source}, "X-Ms-Requires-Sync": {"true"}})
	if copied.StatusCode != http.StatusAccepted || copied.Header.Get("X-Ms-Copy-Status") != "success" || copied.Header.Get("X-Ms-Copy-Id") == "" {
		t.Fatalf("Copy Blob From URL of a private source with a Bearer destination: %d %s", copied.StatusCode, copied.Header.Get("X-Ms-Error-Code"))
	}
	put := send(http.MethodPut, "bearercopy/put", http.Header{"X-Ms-Copy-Source": {source}, "X-Ms-Blob-Type": {"BlockBlob"}})
	if put.StatusCode != http.StatusCreated {
		t.Fatalf("Put Blob From URL of a private source with a Bearer destination: %d %s", put.StatusCode, put.Header.Get("X-Ms-Error-Code"))
	}

	// A source of another account is not the caller's to read.
	other := strings.Replace(source, "/"+lazulitest.Account+"/", "/otheraccount/", 1)
	if r := send(http.MethodPut, "bearercopy/foreign", http.Header{"X-Ms-Copy-Source": {other}, "X-Ms-Requires-Sync": {"true"}}); r.StatusCode < http.StatusBadRequest {
		t.Fatalf("a source of another account: %d", r.StatusCode)
	}
}

// bearerToken is an Entra ID-shaped access token for the storage audience,
// which --oauth basic without --oauthKeys checks for issuer, audience and
// lifetime only.
func bearerToken(t *testing.T) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now()
	claims := map[string]any{"iss": "https://sts.windows.net/a1b2c3d4-0000-4000-8000-000000000001/",
		"aud": "https://storage.azure.com", "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"oid": "0f000000-0000-4000-8000-00000000000f", "tid": "a1b2c3d4-0000-4000-8000-000000000001"}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString([]byte("unchecked"))
}
