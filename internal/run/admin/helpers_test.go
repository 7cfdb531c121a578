package admin_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// signBlob signs a raw blob request with the dev account key.
func signBlob(req *http.Request) {
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("x-ms-version", "2025-01-05")
	auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
}

// call sends method to the admin API at path with an optional JSON body,
// checks the status and decodes the answer into out (when not nil).
func call(t *testing.T, in *lazulitest.Instance, method, path, body string, wantStatus int, out any) {
	t.Helper()
	req, err := http.NewRequest(method, in.AdminURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, raw, wantStatus)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
}

// noRetry makes an error answer reach the test as it was sent.
var noRetry = azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

func blobClient(t *testing.T, in *lazulitest.Instance, opts azcore.ClientOptions) *azblob.Client {
	t.Helper()
	c, err := azblob.NewClientFromConnectionString(in.ConnectionString, &azblob.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func queueClient(t *testing.T, in *lazulitest.Instance) *azqueue.ServiceClient {
	t.Helper()
	c, err := azqueue.NewServiceClientFromConnectionString(in.ConnectionString, &azqueue.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
