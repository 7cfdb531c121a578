package file_test

import (
	"bytes"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestContentMD5PropertyOfAnyLength pins that x-ms-content-md5 is stored as
// given: azfile's live test TestFileSetHTTPHeaders (file/client_test.go)
// sets the 12 bytes of the string "MDAwMDAwMDA=" and reads them back.
func TestContentMD5PropertyOfAnyLength(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	f := newShare(t, svc, "md5prop").NewRootDirectoryClient().NewFileClient("f")
	twelve := []byte("MDAwMDAwMDA=")
	_, err := f.Create(ctx, 0, &file.CreateOptions{HTTPHeaders: &file.HTTPHeaders{ContentMD5: twelve}})
	must(t, err)
	_, err = f.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{HTTPHeaders: &file.HTTPHeaders{ContentMD5: twelve[:5]}})
	must(t, err)
	props, err := f.GetProperties(ctx, nil)
	must(t, err)
	if !bytes.Equal(props.ContentMD5, twelve[:5]) {
		t.Fatalf("Content-MD5 %q", props.ContentMD5)
	}
}
