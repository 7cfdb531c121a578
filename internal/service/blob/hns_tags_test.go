package blob_test

import (
	"net/http"
	"strings"
	"testing"
)

// On an account with a hierarchical namespace every write that takes
// x-ms-tags refuses it with 409
// FeatureNotYetSupportedForHierarchicalNamespaceAccounts and writes
// nothing (hns_limits.go cites the answer). The writes that take the
// header are the ones whose REST pages list it: Put Blob (of a block or
// an append blob), Put Block List, Copy Blob, Copy Blob From URL and Put
// Blob From URL. A write whose page does not list it (Put Block, Set Blob
// Metadata, Append Block) takes no tags, so the header is not read there
// and the write is served as without it.
func TestHNSWritesWithTags(t *testing.T) {
	const featureMissing = "FeatureNotYetSupportedForHierarchicalNamespaceAccounts"
	e := startHNS(t)
	c := e.container("tree")
	e.upload(c, "dir/source.txt", []byte("source"))
	must(c.NewAppendBlobClient("dir/log").Create(e.ctx, nil)).on(t)
	source := e.in.BlobURL + "tree/dir/source.txt"
	tagged := func(h http.Header) http.Header {
		h.Set("x-ms-tags", "k=v")
		return h
	}

	refused := []struct {
		name, path string
		header     http.Header
		body       string
	}{
		{"PutBlob", "tree/dir/put", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}, "x"},
		{"PutAppendBlob", "tree/dir/append", http.Header{"X-Ms-Blob-Type": {"AppendBlob"}}, ""},
		{"PutBlockList", "tree/dir/list?comp=blocklist", http.Header{}, "<BlockList></BlockList>"},
		{"CopyBlob", "tree/dir/copy", http.Header{"X-Ms-Copy-Source": {source}}, ""},
		{"CopyBlobFromURL", "tree/dir/synccopy", http.Header{"X-Ms-Copy-Source": {source}, "X-Ms-Requires-Sync": {"true"}}, ""},
		{"PutBlobFromURL", "tree/dir/fromurl", http.Header{"X-Ms-Copy-Source": {source}, "X-Ms-Blob-Type": {"BlockBlob"}}, ""},
	}
	for _, w := range refused {
		t.Run(w.name, func(t *testing.T) {
			resp := e.raw(http.MethodPut, w.path, tagged(w.header), []byte(w.body))
			if resp.StatusCode != http.StatusConflict || resp.Header.Get("x-ms-error-code") != featureMissing {
				t.Fatalf("want 409 %s, got %d %s", featureMissing, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
			}
			name, _, _ := strings.Cut(strings.TrimPrefix(w.path, "tree/"), "?")
			_, err := c.NewBlobClient(name).GetProperties(e.ctx, nil)
			wantCode(t, err, http.StatusNotFound, "BlobNotFound")
		})
	}

	served := []struct {
		name, method, path string
		header             http.Header
		body               string
		want               int
	}{
		{"PutBlock", http.MethodPut, "tree/dir/staged?comp=block&blockid=YmxvY2sx", http.Header{}, "x", http.StatusCreated},
		{"SetBlobMetadata", http.MethodPut, "tree/dir/source.txt?comp=metadata", http.Header{"X-Ms-Meta-K": {"v"}}, "", http.StatusOK},
		{"AppendBlock", http.MethodPut, "tree/dir/log?comp=appendblock", http.Header{}, "x", http.StatusCreated},
	}
	for _, w := range served {
		t.Run(w.name, func(t *testing.T) {
			resp := e.raw(w.method, w.path, tagged(w.header), []byte(w.body))
			if resp.StatusCode != w.want {
				t.Fatalf("want %d, got %d %s", w.want, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
			}
		})
	}
}
