package blob_test

import (
	"io"
	"net/http"
	"testing"
)

// TestGetBlobIfNoneMatchStar pins Get Blob with If-None-Match: *. The
// conditional-headers page ("Specifying conditional headers for Blob
// service operations") says "*" performs the operation only if the
// resource does not exist and fails it if it does, and a failed
// If-None-Match on a read is 304 Not Modified with an empty body. A blob
// that does not exist is 404 BlobNotFound: there is nothing to read.
// (Azurite answers 400 UnsatisfiableCondition for the missing blob; no
// SDK's error codes list that code, so the service's is not assumed.)
func TestGetBlobIfNoneMatchStar(t *testing.T) {
	e := start(t)
	e.upload(e.container("inm"), "here", []byte("x"))
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		r := e.raw(method, "inm/here", http.Header{"If-None-Match": {"*"}}, nil)
		body, _ := io.ReadAll(r.Body)
		if r.StatusCode != http.StatusNotModified || len(body) != 0 || r.Header.Get("X-Ms-Error-Code") != "ConditionNotMet" {
			t.Fatalf("%s existing blob: %d %s %q", method, r.StatusCode, r.Header.Get("X-Ms-Error-Code"), body)
		}
	}
	r := e.raw(http.MethodGet, "inm/absent", http.Header{"If-None-Match": {"*"}}, nil)
	if r.StatusCode != http.StatusNotFound || r.Header.Get("X-Ms-Error-Code") != "BlobNotFound" {
		t.Fatalf("missing blob: %d %s", r.StatusCode, r.Header.Get("X-Ms-Error-Code"))
	}
}

// TestWriteIfNoneMatchStarWithLease pins that a write holding the blob's
// active lease is not stopped by If-None-Match: *, which the Python SDK
// sends with x-ms-lease-id whenever upload_blob is given a lease without
// overwrite. The recorded Put Block List of azure-sdk-for-python's
// test_create_from_bytes_blob_with_lease_id
// (sdk/storage/azure-storage-blob/tests/recordings/test_block_blob.pyTestStorageBlockBlobtest_create_from_bytes_blob_with_lease_id.json)
// carries both on an existing, leased blob and is answered 201; Put Blob
// goes through the same rule. Without the lease, or with another lease id,
// the blob still exists and the write is refused.
func TestWriteIfNoneMatchStarWithLease(t *testing.T) {
	e := start(t)
	c := e.container("inmlease")
	b := e.upload(c, "leased", []byte("old"))
	const id = "00000000-1111-2222-3333-444444444444"
	acquire := e.raw(http.MethodPut, "inmlease/leased?comp=lease", http.Header{"X-Ms-Lease-Action": {"acquire"},
		"X-Ms-Lease-Duration": {"-1"}, "X-Ms-Proposed-Lease-Id": {id}}, nil)
	if acquire.StatusCode != http.StatusCreated {
		t.Fatalf("acquire: %d", acquire.StatusCode)
	}
	put := e.raw(http.MethodPut, "inmlease/leased", http.Header{"X-Ms-Blob-Type": {"BlockBlob"},
		"If-None-Match": {"*"}, "X-Ms-Lease-Id": {id}}, []byte("put"))
	if put.StatusCode != http.StatusCreated {
		t.Fatalf("Put Blob with If-None-Match: * and the lease: %d %s", put.StatusCode, put.Header.Get("X-Ms-Error-Code"))
	}
	block := e.raw(http.MethodPut, "inmlease/leased?comp=block&blockid=YQ%3D%3D", http.Header{"X-Ms-Lease-Id": {id}}, []byte("block"))
	if block.StatusCode != http.StatusCreated {
		t.Fatalf("Put Block: %d", block.StatusCode)
	}
	list := e.raw(http.MethodPut, "inmlease/leased?comp=blocklist", http.Header{"If-None-Match": {"*"}, "X-Ms-Lease-Id": {id},
		"Content-Type": {"application/xml"}}, []byte(`<?xml version='1.0' encoding='utf-8'?><BlockList><Latest>YQ==</Latest></BlockList>`))
	if list.StatusCode != http.StatusCreated {
		t.Fatalf("Put Block List with If-None-Match: * and the lease: %d %s", list.StatusCode, list.Header.Get("X-Ms-Error-Code"))
	}
	if got := e.read(b.BlobClient()); got != "block" {
		t.Fatalf("content %q", got)
	}

	other := e.raw(http.MethodPut, "inmlease/leased", http.Header{"X-Ms-Blob-Type": {"BlockBlob"},
		"If-None-Match": {"*"}, "X-Ms-Lease-Id": {"11111111-1111-2222-3333-444444444444"}}, []byte("x"))
	if other.StatusCode < http.StatusBadRequest {
		t.Fatalf("another lease id: %d", other.StatusCode)
	}
	e.upload(c, "free", []byte("x"))
	free := e.raw(http.MethodPut, "inmlease/free", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}, "If-None-Match": {"*"}}, []byte("x"))
	if free.StatusCode != http.StatusConflict || free.Header.Get("X-Ms-Error-Code") != "BlobAlreadyExists" {
		t.Fatalf("no lease: %d %s", free.StatusCode, free.Header.Get("X-Ms-Error-Code"))
	}
}
