package blob_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// TestAzuriteAccountsLenientKey: AZURITE_ACCOUNTS="testacct:testing_key"
// works as in Azurite, which decodes the key with Node's forgiving
// Buffer.from(key, "base64"). The JavaScript SDK's credential decodes
// "testing_key" the same way; the Go SDK wants strict base64, so it is
// given the same bytes re-encoded.
func TestAzuriteAccountsLenientKey(t *testing.T) {
	accounts, err := auth.ParseAccountsEnv("testacct:testing_key")
	if err != nil {
		t.Fatalf("AZURITE_ACCOUNTS with testing_key: %v", err)
	}
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) { c.Accounts = accounts }})
	nodeBytes := []byte{0xb5, 0xeb, 0x2d, 0x8a, 0x78, 0x3f, 0x91, 0xec} // node -e 'Buffer.from("testing_key","base64")'
	cred, err := service.NewSharedKeyCredential("testacct", base64.StdEncoding.EncodeToString(nodeBytes))
	if err != nil {
		t.Fatal(err)
	}
	url := strings.Replace(in.BlobURL, lazulitest.Account, "testacct", 1)
	svc, err := service.NewClientWithSharedKeyCredential(url, cred, clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateContainer(t.Context(), "lenient", nil); err != nil {
		t.Fatalf("request signed with the leniently decoded key: %v", err)
	}
}

// TestUnknownPathAccount: a path-style URL naming an account the server
// does not hold is 400 InvalidOperation "Invalid storage account.", as
// Azurite's authenticators answer it.
func TestUnknownPathAccount(t *testing.T) {
	e := start(t)
	url := strings.Replace(e.in.BlobURL, lazulitest.Account, "nosuchaccount", 1) + "?comp=list"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ms-Error-Code") != "InvalidOperation" {
		t.Fatalf("unknown account: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
}
