package dfs

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// deletePage is the most paths one Path - Delete removes in its one
// transaction: a larger directory is deleted over several requests, each
// answering x-ms-continuation for the next, as the service pages a large
// recursive delete ("Path - Delete": continuation). The SDKs resend the
// request with the token until none comes back.
var deletePage = 10000

// deletionIDVersion is the first version whose Path - Delete answers
// x-ms-deletion-id: on an account with a hierarchical namespace and soft
// delete, the ID of the path's soft deletion, which Path - Undelete takes
// (DataLakeStorage.json, Path_Delete: "Returned only for hierarchical
// namespace space enabled accounts when soft delete is enabled"). It is
// the ID ListDeletedPaths lists (blob.DeletionID of the delete's time, the
// first request's for a paged directory delete), answered by the call that
// deletes the path itself, the last of a paged directory delete.
const deletionIDVersion = "2020-02-10"

// deletePath is Path - Delete. A file, or on a flat account any path, is
// deleted as Delete Blob deletes a blob; on an account with a
// hierarchical namespace a directory is deleted with everything under it
// when recursive=true and only when empty otherwise (409
// DirectoryNotEmpty). Conditions and the lease apply to the path named.
// Under soft delete the answer names the deletion (deletionIDVersion).
func (s *Service) deletePath(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	recursive, err := optionalBool(q.Get("recursive"), "recursive")
	if err != nil {
		return err
	}
	after, err := continuationName(q.Get("continuation"))
	if err != nil {
		return err
	}
	conds, err := cond.Parse(r.Header)
	if err != nil {
		return err
	}
	t, account, hns := targetOf(r), request.Of(r).Account, s.hnsAccount(r)
	next, deletionID := "", ""
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if err := existingFilesystem(tx, account, t.Filesystem); err != nil {
			return err
		}
		now := s.now()
		b, err := pathForWrite(tx, account, t.Filesystem, t.Path, now)
		if err != nil {
			return err
		}
		if b == nil {
			return azerr.New(azerr.PathNotFound)
		}
		if err := conds.CheckWrite(resourceOf(b)); err != nil {
			return err
		}
		if err := b.Lease.CheckWrite(leaseID(r), now, leaseKind); err != nil {
			return err
		}
		tree := hns && b.IsDirectory()
		if tree && !recursive {
			if err := refuseNonEmpty(tx, account, t); err != nil {
				return err
			}
		}
		pol, err := blobdata.LoadPolicy(tx, account, s.versioningDefault)
		if err != nil {
			return err
		}
		del := blobdata.TreeDeletion{Account: account, Container: t.Filesystem, Dir: t.Path, Now: now, Policy: pol,
			Refs: blobdata.RefDelta{}, Limit: deletePage, LeaseID: leaseID(r), Alone: !tree}
		var done bool
		if next, done, err = del.Run(tx, after); err != nil {
			return err
		}
		// Under versioning the path becomes a previous version, not a
		// soft deletion an ID could name.
		if done && hns && pol.Retention > 0 && !pol.Versioning && request.Of(r).Version >= deletionIDVersion {
			deletionID = blob.DeletionID(del.DeletedAt)
		}
		return del.Refs.Apply(tx, now)
	})
	if err != nil {
		return err
	}
	h := w.Header()
	if next != "" {
		h.Set("X-Ms-Continuation", continuationToken(next))
	}
	if deletionID != "" {
		h.Set("X-Ms-Deletion-Id", deletionID)
	}
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
	return nil
}

// optionalBool reads a true/false query parameter; absent is false and
// anything else 400 InvalidQueryParameterValue.
func optionalBool(raw, name string) (bool, error) {
	switch {
	case raw == "" || strings.EqualFold(raw, "false"):
		return false, nil
	case strings.EqualFold(raw, "true"):
		return true, nil
	}
	return false, azerr.InvalidQuery(name, raw, "")
}

// refuseNonEmpty is 409 DirectoryNotEmpty while the directory t names has
// paths under it: a non-recursive delete of it, or a rename onto it.
func refuseNonEmpty(tx store.Tx, account string, t target) error {
	full, err := blobdata.HasChildren(tx, account, t.Filesystem, t.Path)
	if err != nil {
		return err
	}
	if full {
		return directoryNotEmpty()
	}
	return nil
}
