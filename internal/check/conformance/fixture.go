package main

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// The SDK tests run on Azure against long-lived accounts that hold what
// earlier runs left behind, and one of them relies on it: azblob's
// TestCreatePageBlobWithTags ends with Find Blobs by Tags for
// "azure"='blob' and reads the first blob found, though its own blob no
// longer carries that tag by then. putTaggedFixture gives the primary
// account such a blob, so the test checks Lazuli's Find Blobs by Tags
// instead of depending on another package's blob existing at that moment.
const (
	fixtureContainer = "lazuli-fixture"
	fixtureBlob      = "tagged"
)

func putTaggedFixture(client *http.Client, a testAccount) error {
	req, err := signedRequest(http.MethodPut, a, auth.Blob, "/"+fixtureContainer+"?restype=container", nil, nil)
	if err != nil {
		return err
	}
	if err := expectStatus(client, req, http.StatusCreated); err != nil {
		return err
	}
	req, err = signedRequest(http.MethodPut, a, auth.Blob, "/"+fixtureContainer+"/"+fixtureBlob, []byte("fixture"), http.Header{
		"X-Ms-Blob-Type": {"BlockBlob"},
		"X-Ms-Tags":      {"azure=blob"},
		"Content-Type":   {"text/plain"},
	})
	if err != nil {
		return err
	}
	return expectStatus(client, req, http.StatusCreated)
}
