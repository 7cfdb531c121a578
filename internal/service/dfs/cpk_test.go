package dfs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
)

// newCPK is a customer-provided key as the SDK sends it: the key, its
// SHA-256 and the algorithm.
func newCPK(seed byte) file.CPKInfo {
	key := bytes.Repeat([]byte{seed}, 32)
	sum := sha256.Sum256(key)
	return file.CPKInfo{
		EncryptionKey:       to.Ptr(base64.StdEncoding.EncodeToString(key)),
		EncryptionKeySHA256: to.Ptr(base64.StdEncoding.EncodeToString(sum[:])),
		EncryptionAlgorithm: to.Ptr(file.EncryptionAlgorithmTypeAES256),
	}
}

// cpkHeaders are the request headers of key k.
func cpkHeaders(k file.CPKInfo) http.Header {
	return http.Header{"X-Ms-Encryption-Key": {*k.EncryptionKey}, "X-Ms-Encryption-Key-Sha256": {*k.EncryptionKeySHA256},
		"X-Ms-Encryption-Algorithm": {string(*k.EncryptionAlgorithm)}}
}

// wantConflict sends a request and asserts it is refused with 409 and
// code, in the dfs JSON error form. The codes are checked as sent: the
// Data Lake SDK respells Blob in a code as Path before its caller sees it.
func (e *env) wantConflict(method, path string, header http.Header, body, code string) {
	e.t.Helper()
	resp, b := e.raw(method, path, header, []byte(body))
	wantJSONError(e.t, resp, b, http.StatusConflict, code)
}

// A file created with a customer-provided key takes appends and flushes
// with that key only, as the Blob API's writes to existing content do:
// 409 BlobUsesCustomerSpecifiedEncryption without it, 409
// BlobCustomerSpecifiedEncryptionMismatch with another. With it both
// echo its hash (azdatalake's recorded TestFileAppendAndFlushDataWithCPK
// reads it back from Get Properties), and the content reads with it.
func TestAppendAndFlushWithCustomerProvidedKey(t *testing.T) {
	e := startTLS(t)
	e.filesystem("lake")
	cpk, other := newCPK(1), newCPK(2)
	f := e.file("lake", "secret.txt")
	if _, err := f.Create(e.ctx, &file.CreateOptions{CPKInfo: &cpk}); err != nil {
		t.Fatal(err)
	}

	const appendAt0 = "lake/secret.txt?action=append&position=0"
	e.wantConflict(http.MethodPatch, appendAt0, nil, "hidden ", "BlobUsesCustomerSpecifiedEncryption")
	e.wantConflict(http.MethodPatch, appendAt0, cpkHeaders(other), "hidden ", "BlobCustomerSpecifiedEncryptionMismatch")
	appended, err := f.AppendData(e.ctx, 0, chunk("hidden "), &file.AppendDataOptions{CPKInfo: &cpk})
	if err != nil {
		t.Fatal(err)
	}
	if appended.EncryptionKeySHA256 == nil || *appended.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*appended.IsServerEncrypted {
		t.Fatalf("append answered key hash %v, encrypted %v", appended.EncryptionKeySHA256, appended.IsServerEncrypted)
	}

	const flushAt7 = "lake/secret.txt?action=flush&position=7"
	e.wantConflict(http.MethodPatch, flushAt7, nil, "", "BlobUsesCustomerSpecifiedEncryption")
	e.wantConflict(http.MethodPatch, flushAt7, cpkHeaders(other), "", "BlobCustomerSpecifiedEncryptionMismatch")
	flushed, err := f.FlushData(e.ctx, 7, &file.FlushDataOptions{CPKInfo: &cpk})
	if err != nil {
		t.Fatal(err)
	}
	if flushed.EncryptionKeySHA256 == nil || *flushed.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*flushed.IsServerEncrypted {
		t.Fatalf("flush answered key hash %v, encrypted %v", flushed.EncryptionKeySHA256, flushed.IsServerEncrypted)
	}

	// An append that flushes is both, under the same rule.
	e.wantConflict(http.MethodPatch, "lake/secret.txt?action=append&position=7&flush=true", nil, "words", "BlobUsesCustomerSpecifiedEncryption")
	if _, err := f.AppendData(e.ctx, 7, chunk("words"), &file.AppendDataOptions{Flush: to.Ptr(true), CPKInfo: &cpk}); err != nil {
		t.Fatal(err)
	}

	got, err := f.DownloadStream(e.ctx, &file.DownloadStreamOptions{CPKInfo: &cpk})
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(got.Body)
	got.Body.Close()
	if err != nil || string(data) != "hidden words" || got.EncryptionKeySHA256 == nil || *got.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 {
		t.Fatalf("read with the key: %q hash %v (%v)", data, got.EncryptionKeySHA256, err)
	}
}

// A key on an append or flush to a file written without one is 409
// BlobDoesNotUseCustomerSpecifiedEncryption, as Append Block answers it
// on a blob without a key; without a key both go through.
func TestCustomerProvidedKeyOnPlainFile(t *testing.T) {
	e := startTLS(t)
	e.filesystem("lake")
	cpk := newCPK(1)
	f := e.newFile("lake", "plain.txt")

	e.wantConflict(http.MethodPatch, "lake/plain.txt?action=append&position=0", cpkHeaders(cpk), "text", "BlobDoesNotUseCustomerSpecifiedEncryption")
	appended, err := f.AppendData(e.ctx, 0, chunk("text"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if appended.EncryptionKeySHA256 != nil {
		t.Fatalf("append without a key answered key hash %s", *appended.EncryptionKeySHA256)
	}
	e.wantConflict(http.MethodPatch, "lake/plain.txt?action=flush&position=4", cpkHeaders(cpk), "", "BlobDoesNotUseCustomerSpecifiedEncryption")
	if _, err := f.FlushData(e.ctx, 4, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.read(f); got != "text" {
		t.Fatalf("the file reads %q", got)
	}
}

// Data staged under one key is not committed with another: a Put Block
// whose ID reads as an append position, staged with a key other than the
// file's, is refused by the flush that would take it, as Put Block List
// refuses it (409 BlobCustomerSpecifiedEncryptionMismatch).
func TestFlushOfDataStagedUnderAnotherKey(t *testing.T) {
	e := startTLS(t)
	e.filesystem("lake")
	cpk, other := newCPK(1), newCPK(2)
	f := e.file("lake", "mixed.txt")
	if _, err := f.Create(e.ctx, &file.CreateOptions{CPKInfo: &cpk}); err != nil {
		t.Fatal(err)
	}
	id := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%020d", 0)))
	resp, b := e.raw(http.MethodPut, "lake/mixed.txt?comp=block&blockid="+id, cpkHeaders(other), []byte("other"))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("Put Block under another key: %d %s", resp.StatusCode, b)
	}
	e.wantConflict(http.MethodPatch, "lake/mixed.txt?action=flush&position=5", cpkHeaders(cpk), "", "BlobCustomerSpecifiedEncryptionMismatch")
}

// A key is taken over HTTPS only (400 UnsupportedHeader over HTTP), and a
// hash that is not the key's is 400 InvalidHeaderValue, as the Blob API
// answers both.
func TestCustomerProvidedKeyHeadersChecked(t *testing.T) {
	plain := start(t)
	plain.filesystem("lake")
	plain.newFile("lake", "f")
	resp, b := plain.raw(http.MethodPatch, "lake/f?action=append&position=0", cpkHeaders(newCPK(1)), []byte("x"))
	wantJSONError(t, resp, b, http.StatusBadRequest, "UnsupportedHeader")
	resp, b = plain.raw(http.MethodPatch, "lake/f?action=flush&position=0", cpkHeaders(newCPK(1)), nil)
	wantJSONError(t, resp, b, http.StatusBadRequest, "UnsupportedHeader")

	e := startTLS(t)
	e.filesystem("lake")
	e.newFile("lake", "f")
	wrongHash := cpkHeaders(newCPK(1))
	wrongHash.Set("X-Ms-Encryption-Key-Sha256", *newCPK(2).EncryptionKeySHA256)
	resp, b = e.raw(http.MethodPatch, "lake/f?action=append&position=0", wrongHash, []byte("x"))
	wantJSONError(t, resp, b, http.StatusBadRequest, "InvalidHeaderValue")
	resp, b = e.raw(http.MethodPatch, "lake/f?action=flush&position=0", wrongHash, nil)
	wantJSONError(t, resp, b, http.StatusBadRequest, "InvalidHeaderValue")
}
