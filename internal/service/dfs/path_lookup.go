package dfs

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// targetOf returns the filesystem and path Handle parsed.
func targetOf(r *http.Request) target {
	t, _ := r.Context().Value(ctxTarget{}).(target)
	return t
}

func (s *Service) now() time.Time { return s.clock.Now() }

// leaseKind is how lease errors name what a dfs path is to the lease
// rules: a blob (mapped to the path codes by dfsError).
const leaseKind = lease.Blob

// leaseID is the request's x-ms-lease-id.
func leaseID(r *http.Request) string { return r.Header.Get(lease.HeaderID) }

// resourceOf is what conditions see of a path: a placeholder holding only
// uncommitted blocks does not exist.
func resourceOf(b *blobdata.Blob) cond.Resource {
	if b == nil || !b.Committed {
		return cond.Resource{}
	}
	return cond.Resource{Exists: true, ETag: b.ETagString(), LastModified: b.LastModified()}
}

// existingFilesystem fails with 404 FilesystemNotFound unless the
// filesystem exists.
func existingFilesystem(tx store.Tx, account, name string) error {
	_, found, err := blobdata.LoadContainer(tx, account, name)
	if err != nil {
		return err
	}
	if !found {
		return azerr.New(azerr.FilesystemNotFound)
	}
	return nil
}

// pathForWrite reads the path name as a write sees it: nil when it does not
// exist (or only holds uncommitted blocks).
func pathForWrite(tx store.Tx, account, filesystem, name string, now time.Time) (*blobdata.Blob, error) {
	b, err := blobdata.LoadBlobForWrite(tx, account, filesystem, name, now)
	if err != nil || b == nil || !b.Committed {
		return nil, err
	}
	return b, nil
}

// pathConflict is 409 PathConflict: a path's element exists with the
// other resource type (a file where a directory is needed, or the other
// way round).
func pathConflict() error { return azerr.New(azerr.PathConflict) }

// onlyHNS is 400 HierarchicalNamespaceNotEnabled unless the account has a
// hierarchical namespace: the answer of the dfs endpoint of a flat
// account to the operations only a hierarchical namespace has ("This
// operation is only supported on a hierarchical namespace account.", as
// Apache Arrow's azurefs.cc records the service's answer).
func (s *Service) onlyHNS(r *http.Request) error {
	if s.hnsAccount(r) {
		return nil
	}
	return azerr.New(azerr.HierarchicalNamespaceNotEnabled)
}

// directoryNotEmpty is 409 DirectoryNotEmpty with the dfs endpoint's
// message (the .NET SDK's issue 10425 shows the service's answer).
func directoryNotEmpty() error {
	return azerr.Newf(azerr.DirectoryNotEmpty, "The recursive query parameter value must be true to delete a non-empty directory.")
}
