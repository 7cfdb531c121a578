package dfs

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// createContentHeaders are Path - Create's content properties and the Put Blob
// headers that set the same ones.
var createContentHeaders = map[string]string{
	"x-ms-cache-control":       "x-ms-blob-cache-control",
	"x-ms-content-type":        "x-ms-blob-content-type",
	"x-ms-content-encoding":    "x-ms-blob-content-encoding",
	"x-ms-content-language":    "x-ms-blob-content-language",
	"x-ms-content-disposition": "x-ms-blob-content-disposition",
}

// standardContentHeaders are the HTTP headers Put Blob reads as content
// properties when x-ms-blob-* do not say them; Path - Create takes none
// of them (it has no body), so they are dropped.
var standardContentHeaders = []string{"Content-Type", "Content-Encoding", "Content-Language",
	"Content-Disposition", "Cache-Control", "Content-Md5", "x-ms-blob-content-md5"}

// createPath is Path - Create of a file or directory (resource=file or
// directory, no rename): an empty block blob, a directory's with
// hdi_isfolder=true in its metadata, written by Put Blob (conditions,
// leases, history, authorization of an overwrite and, on an account with
// a hierarchical namespace, the missing parent directories are its own).
// There a path of the other resource type is 409 PathConflict. A proposed
// lease and an encryption context are kept on the path in Put Blob's
// transaction (path_create_after.go).
func (s *Service) createPath(w http.ResponseWriter, r *http.Request) error {
	directory := strings.EqualFold(r.URL.Query().Get("resource"), "directory")
	access, err := s.accessOnCreate(r, directory)
	if err != nil {
		return err
	}
	extras, err := parseCreateExtras(r.Header)
	if err != nil {
		return err
	}
	if s.hnsAccount(r) {
		if err := s.prepareCreate(r, directory); err != nil {
			return err
		}
	}
	blobReq := r.Clone(extras.within(r.Context()))
	q := url.Values{}
	if t := r.URL.Query().Get("timeout"); t != "" {
		q.Set("timeout", t)
	}
	blobReq.URL.RawQuery = q.Encode()
	h := blobReq.Header
	if err := propertiesToMeta(h); err != nil {
		return err
	}
	for _, name := range standardContentHeaders {
		h.Del(name)
	}
	for dfsName, blobName := range createContentHeaders {
		if v := h.Get(dfsName); v != "" {
			h.Set(blobName, v)
		}
		h.Del(dfsName)
	}
	if directory {
		h.Set("x-ms-meta-"+blobdata.DirectoryFlag, "true")
	}
	h.Del(lease.HeaderProposedID)
	h.Del(lease.HeaderDuration)
	h.Del(encryptionContextHeader)
	h.Set("x-ms-blob-type", "BlockBlob")
	h.Set("Content-Length", "0")
	blobReq.ContentLength, blobReq.Body = 0, http.NoBody
	err = s.blobs.Handle(&answerHeaders{ResponseWriter: access.hold(w), fix: func(h http.Header) {
		// Put Blob's checksums of the empty content are not Path -
		// Create's answer.
		h.Del("Content-Md5")
		h.Del("x-ms-content-crc64")
	}}, blobReq)
	return access.finish(err)
}

// prepareCreate checks that the filesystem exists and that the path is
// not of the other resource type (409 PathConflict). The missing parents
// are Put Blob's to create, in its own transaction, on an account with a
// hierarchical namespace (a parent that is a file is 409 PathConflict
// there).
func (s *Service) prepareCreate(r *http.Request, directory bool) error {
	t, account := targetOf(r), request.Of(r).Account
	return s.store.View(r.Context(), func(tx store.Tx) error {
		if err := existingFilesystem(tx, account, t.Filesystem); err != nil {
			return err
		}
		old, err := blobdata.LoadLiveBlob(tx, account, t.Filesystem, t.Path, s.now())
		if err != nil {
			return err
		}
		if old != nil && old.Committed && old.IsDirectory() != directory {
			return pathConflict()
		}
		return nil
	})
}
