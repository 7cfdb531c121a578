package dfs

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// withResourceType is w for a Blob request that reads a path (Get Blob
// or Get Blob Properties, no comp) on an account with a hierarchical
// namespace: its answer also says x-ms-resource-type, directory or file,
// and, for the current state of the path, its x-ms-owner, x-ms-group,
// x-ms-permissions and x-ms-acl (and x-ms-encryption-context when it has
// one), as the service's answers to these reads
// do on such an account and as the DataLake SDKs read them from their
// Blob calls (azdatalake's GetProperties takes ResourceType and
// Permissions from them). The directory flag is in the answer's metadata
// already; the access control is read from the record. Other requests
// get w as it is.
func (e *Endpoint) withResourceType(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	q := r.URL.Query()
	if (r.Method != http.MethodHead && r.Method != http.MethodGet) || q.Has("comp") || !e.DFS.hnsAccount(r) {
		return w
	}
	t, level := parsePath(request.Of(r).Path)
	if level != route.Object {
		return w
	}
	current := !q.Has("snapshot") && !q.Has("versionid")
	return &answerHeaders{ResponseWriter: w, fix: func(h http.Header) {
		directory := false
		for k, vs := range h {
			// Metadata headers keep the stored name's case.
			if strings.EqualFold(k, metaPrefix+blobdata.DirectoryFlag) && len(vs) > 0 && strings.EqualFold(vs[0], "true") {
				directory = true
			}
		}
		kind := "file"
		if directory {
			kind = "directory"
		}
		h.Set(resourceTypeHeader, kind)
		if current {
			e.DFS.writePathAccess(r, h, t, directory)
		}
	}}
}

// writePathAccess adds the path's access control and encryption context
// headers to a Blob read's answer, by user principal name with upn=true
// (Path - Get Properties' upn, which Get Blob Properties does not
// check); a record that cannot be read (gone meanwhile) adds none, the
// answer being the read's.
func (s *Service) writePathAccess(r *http.Request, h http.Header, t target, directory bool) {
	upn, _ := strconv.ParseBool(r.URL.Query().Get("upn"))
	account := request.Of(r).Account
	var b *blobdata.Blob
	var access blobdata.PosixState
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if b, err = blobdata.LoadLiveBlob(tx, account, t.Filesystem, t.Path, s.now()); err != nil || b == nil {
			return err
		}
		if access = b.Access(directory); upn {
			access, err = newPrincipalNames(tx, account).named(access)
		}
		return err
	})
	if err == nil && b != nil {
		writeAccess(h, access)
		if b.EncryptionContext != "" {
			h.Set(encryptionContextHeader, b.EncryptionContext)
		}
	}
}
