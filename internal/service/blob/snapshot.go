package blob

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// snapshotBlob is Snapshot Blob: a read-only copy of the base blob's
// committed state, keyed by its creation time, sharing the base blob's
// extents (a reference each, no bytes copied). The snapshot keeps the
// base blob's ETag and Last-Modified unless the request gives it metadata
// of its own, which makes it a new state with a new ETag. The base blob
// does not change, except that with versioning on its current version
// becomes a previous one and it gets a new version ID, as on Azure (the
// SDK's recorded tests list six versions after a create and five
// snapshots). A lease does not block it: the request may carry the
// active lease ID or none, but not another one (412).
func (s *Service) snapshotBlob(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	conds, err := parseBaseRequest(r, cond.AllConditions)
	if err != nil {
		return err
	}
	md, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	var snap *blobdata.Blob
	var id, versionID string
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		c, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		if err := keyOf(r).resolve(c); err != nil {
			return err
		}
		now := s.now()
		base, err := blobdata.LoadState(tx, account, t.Container, t.Blob, blobdata.Selector{}, now)
		if err != nil || base == nil {
			return firstErr(err, blobNotFound())
		}
		if err := checkWriteConditions(conds, base); err != nil {
			return err
		}
		if err := base.Lease.CheckRead(leaseID(r), now, lease.Blob); err != nil {
			return err
		}
		if err := keyOf(r).check(base); err != nil {
			return err
		}
		if base.ArchivedAt(now) {
			return azerr.New(azerr.BlobArchived)
		}
		if base.IncrementalCopy() {
			// Its snapshots are made by the incremental copies.
			return azerr.New(azerr.OperationNotAllowedOnIncrementalCopyBlob)
		}
		if id, err = blobdata.FreeStamp(tx, account, t.Container, t.Blob, blobdata.SnapshotPrefix, now); err != nil {
			return err
		}
		snap = blobdata.Frozen(base)
		snap.VersionID = ""
		if len(md) > 0 {
			snap.Metadata = md
			snap.ETag = etag.Next(now, base.ETag)
		}
		refs := blobdata.RefDelta{}
		if err := blobdata.PutState(tx, blobdata.RecordKey(account, t.Container, t.Blob, blobdata.SnapshotPrefix+id), snap, refs); err != nil {
			return err
		}
		if err := s.newVersionOnSnapshot(tx, account, t, base, now, refs); err != nil {
			return err
		}
		versionID = base.VersionID
		return refs.Apply(tx, now)
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setBlobETag(h, snap)
	h.Set("X-Ms-Snapshot", id)
	setIf(h, "X-Ms-Version-Id", versionID)
	// A snapshot writes no data: under a customer-provided key or a scope
	// the service answers false and echoes neither.
	h.Set("X-Ms-Request-Server-Encrypted", strconv.FormatBool(snap.Encryption.Empty()))
	return write(w, http.StatusCreated)
}

// newVersionOnSnapshot keeps base's current version as a previous one and
// gives base a new version ID when the account versions its blobs. The ID
// comes from a fresh ETag tick, so no later write can reuse it, but base's
// ETag and Last-Modified stay: its content did not change.
func (s *Service) newVersionOnSnapshot(tx store.Tx, account string, t target, base *blobdata.Blob, now time.Time, refs blobdata.RefDelta) error {
	policy, err := blobdata.LoadPolicy(tx, account, s.versioningDefault)
	if err != nil || !policy.Versioning {
		return err
	}
	h := &blobdata.History{Account: account, Container: t.Container, Name: t.Blob, Kind: blobdata.WriteMetadata, Now: now, Policy: policy}
	if err := h.KeepVersion(tx, base, refs); err != nil {
		return err
	}
	base.VersionID = blobdata.Stamp(etag.Next(now, base.ETag).Time())
	return blobdata.SaveBlob(tx, account, t.Container, t.Blob, base)
}
