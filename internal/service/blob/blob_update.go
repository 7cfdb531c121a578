package blob

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// blobChange is the part of a blob write specific to one operation. It
// gets the current record (nil, or a placeholder, when the blob does not
// exist yet) and a reference ledger, and returns the record to store, or
// nil when it deleted the blob itself.
type blobChange func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error)

// writeBlobAs runs one blob write in a single Update, in the service's
// order: the container must exist; the blob must exist unless the write
// is of a kind that creates it (kind.Creates); If-None-Match:* on a creating write of an existing blob is 409
// BlobAlreadyExists; then the conditions (412) and the lease (412 when the
// lease ID is missing, wrong or names no lease). The change's extent
// reference adjustments commit with the record. kind decides whether the
// blob's previous state is kept as a version or a soft-deleted snapshot
// (versioning.go). Snapshots and versions are read-only.
func (s *Service) writeBlobAs(r *http.Request, conds conditions, kind blobdata.WriteKind, change blobChange) (*blobdata.Blob, error) {
	if err := onlyBase(r); err != nil {
		return nil, err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	var result *blobdata.Blob
	creates := kind.Creates()
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		c, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		old, err := blobdata.LoadBlobForWrite(tx, account, t.Container, t.Blob, s.now())
		if err != nil {
			return err
		}
		committed := old != nil && old.Committed
		if committed && conds.IfNoneMatchStar() && holdsLease(r, old, s.now()) {
			conds.IfNoneMatch = nil
		}
		switch {
		case !committed && !creates:
			return blobNotFound()
		case committed && creates && conds.IfNoneMatchStar():
			return azerr.New(azerr.BlobAlreadyExists)
		case committed && creates:
			// Decided here, in the write's own transaction: a create-only
			// SAS may not replace the blob that now exists.
			if err := authorizeOverwrite(r, containerTarget(t, c)); err != nil {
				return err
			}
		}
		if err := checkWriteConditions(conds, old); err != nil {
			return err
		}
		var current lease.Lease
		if committed {
			current = old.Lease
		}
		if err := current.CheckWrite(leaseID(r), s.now(), lease.Blob); err != nil {
			return err
		}
		if err := keyOf(r).resolve(c); err != nil {
			return err
		}
		if committed {
			if err := keyOf(r).check(old); err != nil {
				return err
			}
		}
		hist, err := blobdata.BeginHistory(tx, account, t.Container, t.Blob, old, kind, s.now(), s.versioningDefault)
		if err != nil {
			return err
		}
		refs := blobdata.RefDelta{}
		rec, err := change(tx, old, refs)
		if err != nil {
			return err
		}
		if rec != nil {
			if err := hist.Finish(tx, rec, refs); err != nil {
				return err
			}
		}
		if rec != nil && creates {
			if err := s.applyWriteImmutability(tx, r, rec, s.now()); err != nil {
				return err
			}
		}
		if rec != nil && creates && !committed {
			if err := s.createParents(tx, r); err != nil {
				return err
			}
		}
		if rec != nil && creates && committed {
			if err := s.keepDirectory(r, old, rec); err != nil {
				return err
			}
		}
		if rec != nil && creates {
			if err := s.own(tx, r, rec); err != nil {
				return err
			}
		}
		if err := blobdata.ReindexTags(tx, account, t.Container, t.Blob, old, rec); err != nil {
			return err
		}
		if err := blobdata.ReindexExpiry(tx, account, t.Container, t.Blob, old, rec); err != nil {
			return err
		}
		if err := refs.Apply(tx, s.now()); err != nil {
			return err
		}
		result = rec
		if rec == nil {
			return nil
		}
		return blobdata.SaveBlob(tx, account, t.Container, t.Blob, rec)
	})
	return result, err
}

// touch gives a modified blob its next ETag and forgets an expired or
// broken lease, as every successful write does.
func (s *Service) touch(b *blobdata.Blob) {
	now := s.now()
	b.ETag = etag.Next(now, b.ETag)
	b.Lease = b.Lease.AfterWrite(now)
}

// replaced starts the record of the request's blob that a Put Blob, Put
// Block List or copy replaces: the old content and any uncommitted blocks
// are released, the creation time and an active lease survive (an
// overwrite keeps the lease).
func (s *Service) replaced(tx store.Tx, r *http.Request, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
	now := s.now()
	rec := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true, Created: now}
	rec.Encryption = blobdata.EncryptionState{KeySHA256: keyOf(r).SHA256, Scope: keyOf(r).Scope}
	if old == nil {
		rec.ETag = etag.Next(now, 0)
		return rec, nil
	}
	segs, err := old.Segments()
	if err != nil {
		return nil, err
	}
	refs.DropSegments(segs)
	rec.ETag = etag.Next(now, old.ETag)
	if old.Committed {
		rec.Created = old.Created
		rec.Lease = old.Lease.AfterWrite(now)
	}
	if old.HasUncommitted {
		t := targetOf(r)
		if err := blobdata.DropUncommitted(tx, request.Of(r).Account, t.Container, t.Blob, refs); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// holdsLease reports whether the request names the active lease of the
// committed blob it writes. Such a write is not stopped by If-None-Match: *
// (Put Block List answers 201 to the pair in azure-sdk-for-python's recorded
// test_create_from_bytes_blob_with_lease_id, tests/recordings/
// test_block_blob.pyTestStorageBlockBlobtest_create_from_bytes_blob_with_lease_id.json):
// the Python SDK sends both whenever upload_blob is given a lease.
func holdsLease(r *http.Request, b *blobdata.Blob, now time.Time) bool {
	id := leaseID(r)
	state := b.Lease.State(now)
	return id != "" && (state == lease.Leased || state == lease.Breaking) && b.Lease.CheckWrite(id, now, lease.Blob) == nil
}

// authorizeOverwrite applies the matched row's rule for replacing a blob
// that exists: a SAS granting create but not write is refused with 403
// UnauthorizedBlobOverwrite, "This request is not authorized to perform
// blob overwrites" (the SDK's TestCommitBlockListWithUDSCreatePermission-
// OverwriteFails and TestStageBlock*WithUDSCreatePermissionOverwriteFails).
func authorizeOverwrite(r *http.Request, t auth.Target) error {
	err := route.AuthorizeReplace(r, t)
	if azerr.Is(err, azerr.AuthorizationPermissionMismatch) {
		return azerr.New(azerr.UnauthorizedBlobOverwrite)
	}
	return err
}
