package blob

import (
	"bytes"
	"errors"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// writeKind is what a blob write does to the blob's history.
type writeKind uint8

const (
	// writePlain changes content in place (Put Page, Append Block, Seal):
	// no new version, as the service does for page and append writes.
	writePlain writeKind = iota
	// writeProps is Set Blob Properties: no new version; not on an
	// archived blob; it ends the blob's copy properties.
	writeProps
	// writeMetadata is Set Blob Metadata: a new version; not on an
	// archived blob.
	writeMetadata
	// writeReplace replaces the whole blob (Put Blob, Put Block List,
	// copies, and the creation of page and append blobs): a new version,
	// and with soft delete on (versioning off) the old state is kept as a
	// soft-deleted snapshot.
	writeReplace
	// writeIncremental is Incremental Copy Blob, the one write an
	// incremental copy blob takes; it keeps its history as snapshots.
	writeIncremental
)

// dataPolicy is the part of the Blob service properties that decides
// what writes and deletes keep.
type dataPolicy struct {
	versioning bool
	// retention is how long soft-deleted data is kept; 0 when blob soft
	// delete is off.
	retention time.Duration
	// permanentDelete allows deletetype=permanent on soft-deleted
	// snapshots and versions.
	permanentDelete bool
	// immutableVersions is version-level immutability (immutability.go).
	immutableVersions bool
	// containerRetention is how long a deleted container is kept; 0 when
	// container soft delete is off (container_softdelete.go).
	containerRetention time.Duration
}

// policyCache remembers the policy derived from each account's stored
// service properties, keyed by their exact bytes: every blob write reads
// the record in its own transaction, but decodes it only when it changed.
var policyCache sync.Map // policyKey -> *cachedPolicy

// policyKey names a cached policy: the account and the server's versioning
// default, which differ between servers of one process.
type policyKey struct {
	account           string
	versioningDefault bool
}

type cachedPolicy struct {
	raw    []byte
	policy dataPolicy
}

// loadPolicy reads the account's data protection settings in the write's
// own transaction, so a write never races a change of the settings.
func loadPolicy(tx store.Tx, account string, versioningDefault bool) (dataPolicy, error) {
	raw, err := tx.Get(svcprops.Key(account, string(auth.Blob)))
	if errors.Is(err, store.ErrNotFound) {
		return dataPolicy{versioning: versioningDefault}, nil
	}
	if err != nil {
		return dataPolicy{}, err
	}
	key := policyKey{account, versioningDefault}
	if c, ok := policyCache.Load(key); ok && bytes.Equal(c.(*cachedPolicy).raw, raw) {
		return c.(*cachedPolicy).policy, nil
	}
	p, err := svcprops.Load(tx, account, string(auth.Blob))
	if err != nil {
		return dataPolicy{}, err
	}
	d := policyOf(withVersioningDefault(p, versioningDefault))
	policyCache.Store(key, &cachedPolicy{raw: bytes.Clone(raw), policy: d})
	return d, nil
}

// withVersioningDefault fills IsVersioningEnabled from the server's
// default (--blobVersioning) when the account has not set it.
func withVersioningDefault(p svcprops.Properties, versioningDefault bool) svcprops.Properties {
	if p.IsVersioningEnabled == nil && versioningDefault {
		on := true
		p.IsVersioningEnabled = &on
	}
	return p
}

// policyOf derives the data protection settings from service properties.
func policyOf(p svcprops.Properties) dataPolicy {
	var d dataPolicy
	d.versioning = p.IsVersioningEnabled != nil && *p.IsVersioningEnabled
	d.immutableVersions = d.versioning && p.ImmutableStorageWithVersioning != nil && p.ImmutableStorageWithVersioning.Enabled
	if rp := p.ContainerDeleteRetentionPolicy; rp != nil && rp.Enabled && rp.Days != nil {
		d.containerRetention = time.Duration(*rp.Days) * 24 * time.Hour
	}
	if rp := p.DeleteRetentionPolicy; rp != nil && rp.Enabled && rp.Days != nil {
		d.retention = time.Duration(*rp.Days) * 24 * time.Hour
		d.permanentDelete = rp.AllowPermanentDelete != nil && *rp.AllowPermanentDelete
	}
	return d
}

// history carries what a write must keep of the blob it changes, from
// before the change (begin) to after it (finish).
type history struct {
	account, container, name string
	kind                     writeKind
	now                      time.Time
	policy                   dataPolicy
	// prev is the blob as it was, nil when the write creates it.
	prev *blobdata.Blob
}

// beginHistory checks that a write of this kind may change the committed
// blob old (nil when there is none) and remembers what it was. The caller
// runs the change, then finish.
func beginHistory(tx store.Tx, account, container, name string, old *blobdata.Blob, kind writeKind, now time.Time, versioningDefault bool) (*history, error) {
	h := &history{account: account, container: container, name: name, kind: kind, now: now}
	if old != nil && old.Committed {
		if old.CopyPendingAt(h.now) {
			return nil, azerr.New(azerr.PendingCopyOperation)
		}
		if old.IncrementalCopy() && kind != writeIncremental {
			return nil, azerr.New(azerr.OperationNotAllowedOnIncrementalCopyBlob)
		}
		if (kind == writeProps || kind == writeMetadata) && old.ArchivedAt(h.now) {
			return nil, azerr.New(azerr.BlobArchived)
		}
		if protectsInPlace(kind) {
			if err := old.Protection(h.now); err != nil {
				return nil, err
			}
		}
	}
	if kind == writePlain || kind == writeProps || kind == writeIncremental {
		return h, nil
	}
	if old != nil && old.Committed {
		// The change may modify old in place: keep what it was.
		p := *old
		h.prev = &p
	}
	var err error
	if h.policy, err = loadPolicy(tx, account, versioningDefault); err != nil {
		return nil, err
	}
	if h.prev != nil && !h.policy.versioning {
		// Only a version could keep a protected state that is replaced.
		if err := h.prev.Protection(h.now); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// finish keeps the blob's previous state as the policy asks and gives the
// new state its version ID. rec is what the change will store.
func (h *history) finish(tx store.Tx, rec *blobdata.Blob, refs blobdata.RefDelta) error {
	if h.kind == writeProps {
		if rec.Copy != nil {
			// A write of the properties ends the copy properties.
			rec.Copy = nil
		}
		return nil
	}
	if h.kind == writePlain || h.kind == writeIncremental {
		return nil
	}
	if h.prev != nil {
		switch {
		case h.prev.VersionID != "" || h.policy.versioning:
			if err := h.keepVersion(tx, h.prev, refs); err != nil {
				return err
			}
		case h.kind == writeReplace && h.policy.retention > 0:
			if err := h.keepDeletedSnapshot(tx, h.prev, refs); err != nil {
				return err
			}
		}
	}
	rec.VersionID = ""
	if h.policy.versioning {
		rec.VersionID = blobdata.Stamp(rec.ETag.Time())
	}
	return nil
}

// keepVersion stores prev as a previous version. A blob written before
// versioning was turned on has no version ID; its state is kept under
// the instant it was written.
func (h *history) keepVersion(tx store.Tx, prev *blobdata.Blob, refs blobdata.RefDelta) error {
	v := frozen(prev)
	if v.VersionID == "" {
		id, err := blobdata.FreeStamp(tx, h.account, h.container, h.name, blobdata.VersionPrefix, prev.ETag.Time())
		if err != nil {
			return err
		}
		v.VersionID = id
	}
	if err := putVersionTags(tx, h.account, h.container, h.name, v); err != nil {
		return err
	}
	return putState(tx, blobdata.RecordKey(h.account, h.container, h.name, blobdata.VersionPrefix+v.VersionID), v, refs)
}

// keepDeletedSnapshot stores prev as a snapshot soft-deleted now, as the
// service does when soft delete is on and a blob is overwritten.
func (h *history) keepDeletedSnapshot(tx store.Tx, prev *blobdata.Blob, refs blobdata.RefDelta) error {
	v := frozen(prev)
	v.VersionID = ""
	v.DeletedAt, v.Purge = h.now, h.now.Add(h.policy.retention)
	id, err := blobdata.FreeStamp(tx, h.account, h.container, h.name, blobdata.SnapshotPrefix, h.now)
	if err != nil {
		return err
	}
	return putState(tx, blobdata.RecordKey(h.account, h.container, h.name, blobdata.SnapshotPrefix+id), v, refs)
}

// frozen returns a read-only copy of a blob state for a snapshot or a
// version: no lease, no uncommitted blocks.
func frozen(b *blobdata.Blob) *blobdata.Blob {
	v := *b
	v.Lease = lease.Lease{}
	v.HasUncommitted, v.BlockIDLen = false, 0
	v.ExpiresOn = time.Time{} // only the base blob expires
	return &v
}

// putState stores a new record that shares the content of another, taking
// a reference on each of its extents.
func putState(tx store.Tx, key []byte, b *blobdata.Blob, refs blobdata.RefDelta) error {
	exts, err := b.Extents()
	if err != nil {
		return err
	}
	for _, id := range exts {
		refs.Add(id)
	}
	return tx.Put(key, b.Encode())
}

// dropState deletes a record and releases its extent references.
func dropState(tx store.Tx, key []byte, b *blobdata.Blob, refs blobdata.RefDelta) error {
	exts, err := b.Extents()
	if err != nil {
		return err
	}
	for _, id := range exts {
		refs.Drop(id)
	}
	if err := dropStateVersionTags(tx, key, b); err != nil {
		return err
	}
	return tx.Delete(key)
}

// protectsInPlace reports whether a write of this kind changes the blob
// in place, which a protected version refuses.
func protectsInPlace(kind writeKind) bool {
	return kind == writePlain || kind == writeMetadata || kind == writeIncremental
}
