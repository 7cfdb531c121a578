package blobdata

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
)

// WriteKind is what a blob write does to the blob's history.
type WriteKind uint8

const (
	// WritePlain changes content in place (Put Page, Append Block, Seal):
	// no new version, as the service does for page and append writes.
	WritePlain WriteKind = iota
	// WriteProps is Set Blob Properties: no new version; not on an
	// archived blob; it ends the blob's copy properties.
	WriteProps
	// WriteMetadata is Set Blob Metadata: a new version; not on an
	// archived blob.
	WriteMetadata
	// WriteReplace replaces the whole blob (Put Blob, Put Block List,
	// copies, and the creation of page and append blobs): a new version,
	// and with soft delete on (versioning off) the old state is kept as a
	// soft-deleted snapshot.
	WriteReplace
	// WriteIncremental is Incremental Copy Blob, the one write an
	// incremental copy blob takes; it keeps its history as snapshots.
	WriteIncremental
)

// Creates reports whether a write of this kind may create the blob: the
// whole-blob writes do; the others change a blob that must exist.
func (k WriteKind) Creates() bool { return k == WriteReplace || k == WriteIncremental }

// Policy is the part of the Blob service properties that decides
// what writes and deletes keep.
type Policy struct {
	Versioning bool
	// retention is how long soft-deleted data is kept; 0 when blob soft
	// delete is off.
	Retention time.Duration
	// PermanentDelete allows deletetype=permanent on soft-deleted
	// snapshots and versions.
	PermanentDelete bool
	// ImmutableVersions is version-level immutability (service/blob
	// immutability.go).
	ImmutableVersions bool
	// ContainerRetention is how long a deleted container is kept; 0 when
	// container soft delete is off (service/blob container_softdelete.go).
	ContainerRetention time.Duration
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
	policy Policy
}

// LoadPolicy reads the account's data protection settings in the write's
// own transaction, so a write never races a change of the settings.
func LoadPolicy(tx store.Tx, account string, versioningDefault bool) (Policy, error) {
	raw, err := tx.Get(svcprops.Key(account, string(auth.Blob)))
	if errors.Is(err, store.ErrNotFound) {
		return Policy{Versioning: versioningDefault}, nil
	}
	if err != nil {
		return Policy{}, err
	}
	key := policyKey{account, versioningDefault}
	if c, ok := policyCache.Load(key); ok && bytes.Equal(c.(*cachedPolicy).raw, raw) {
		return c.(*cachedPolicy).policy, nil
	}
	p, err := svcprops.Load(tx, account, string(auth.Blob))
	if err != nil {
		return Policy{}, err
	}
	d := policyOf(WithVersioningDefault(p, versioningDefault))
	policyCache.Store(key, &cachedPolicy{raw: bytes.Clone(raw), policy: d})
	return d, nil
}

// WithVersioningDefault fills IsVersioningEnabled from the server's
// default (--blobVersioning) when the account has not set it.
func WithVersioningDefault(p svcprops.Properties, versioningDefault bool) svcprops.Properties {
	if p.IsVersioningEnabled == nil && versioningDefault {
		on := true
		p.IsVersioningEnabled = &on
	}
	return p
}

// policyOf derives the data protection settings from service properties.
func policyOf(p svcprops.Properties) Policy {
	var d Policy
	d.Versioning = p.IsVersioningEnabled != nil && *p.IsVersioningEnabled
	d.ImmutableVersions = d.Versioning && p.ImmutableStorageWithVersioning != nil && p.ImmutableStorageWithVersioning.Enabled
	if rp := p.ContainerDeleteRetentionPolicy; rp != nil && rp.Enabled && rp.Days != nil {
		d.ContainerRetention = time.Duration(*rp.Days) * 24 * time.Hour
	}
	if rp := p.DeleteRetentionPolicy; rp != nil && rp.Enabled && rp.Days != nil {
		d.Retention = time.Duration(*rp.Days) * 24 * time.Hour
		d.PermanentDelete = rp.AllowPermanentDelete != nil && *rp.AllowPermanentDelete
	}
	return d
}

// History carries what a write must keep of the blob it changes, from
// before the change (begin) to after it (finish).
type History struct {
	Account, Container, Name string
	Kind                     WriteKind
	Now                      time.Time
	Policy                   Policy
	// prev is the blob as it was, nil when the write creates it.
	prev *Blob
}

// BeginHistory checks that a write of this kind may change the committed
// blob old (nil when there is none) and remembers what it was. The caller
// runs the change, then finish.
func BeginHistory(tx store.Tx, account, container, name string, old *Blob, kind WriteKind, now time.Time, versioningDefault bool) (*History, error) {
	h := &History{Account: account, Container: container, Name: name, Kind: kind, Now: now}
	if old != nil && old.Committed {
		if old.CopyPendingAt(h.Now) {
			return nil, azerr.New(azerr.PendingCopyOperation)
		}
		if old.IncrementalCopy() && kind != WriteIncremental {
			return nil, azerr.New(azerr.OperationNotAllowedOnIncrementalCopyBlob)
		}
		if (kind == WriteProps || kind == WriteMetadata) && old.ArchivedAt(h.Now) {
			return nil, azerr.New(azerr.BlobArchived)
		}
		if protectsInPlace(kind) {
			if err := old.Protection(h.Now); err != nil {
				return nil, err
			}
		}
	}
	if kind == WritePlain || kind == WriteProps || kind == WriteIncremental {
		return h, nil
	}
	if old != nil && old.Committed {
		// The change may modify old in place: keep what it was.
		p := *old
		h.prev = &p
	}
	var err error
	if h.Policy, err = LoadPolicy(tx, account, versioningDefault); err != nil {
		return nil, err
	}
	if h.prev != nil && !h.Policy.Versioning {
		// Only a version could keep a protected state that is replaced.
		if err := h.prev.Protection(h.Now); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Finish keeps the blob's previous state as the policy asks and gives the
// new state its version ID. rec is what the change will store.
func (h *History) Finish(tx store.Tx, rec *Blob, refs RefDelta) error {
	if h.Kind == WriteProps {
		if rec.Copy != nil {
			// A write of the properties ends the copy properties.
			rec.Copy = nil
		}
		return nil
	}
	if h.Kind == WritePlain || h.Kind == WriteIncremental {
		return nil
	}
	if h.prev != nil {
		switch {
		case h.prev.VersionID != "" || h.Policy.Versioning:
			if err := h.KeepVersion(tx, h.prev, refs); err != nil {
				return err
			}
		case h.Kind == WriteReplace && h.Policy.Retention > 0:
			if err := h.keepDeletedSnapshot(tx, h.prev, refs); err != nil {
				return err
			}
		}
	}
	rec.VersionID = ""
	if h.Policy.Versioning {
		rec.VersionID = Stamp(rec.ETag.Time())
	}
	return nil
}

// KeepVersion stores prev as a previous version. A blob written before
// versioning was turned on has no version ID; its state is kept under
// the instant it was written.
func (h *History) KeepVersion(tx store.Tx, prev *Blob, refs RefDelta) error {
	v := Frozen(prev)
	if v.VersionID == "" {
		id, err := FreeStamp(tx, h.Account, h.Container, h.Name, VersionPrefix, prev.ETag.Time())
		if err != nil {
			return err
		}
		v.VersionID = id
	}
	if err := PutVersionTags(tx, h.Account, h.Container, h.Name, v); err != nil {
		return err
	}
	return PutState(tx, RecordKey(h.Account, h.Container, h.Name, VersionPrefix+v.VersionID), v, refs)
}

// keepDeletedSnapshot stores prev as a snapshot soft-deleted now, as the
// service does when soft delete is on and a blob is overwritten.
func (h *History) keepDeletedSnapshot(tx store.Tx, prev *Blob, refs RefDelta) error {
	v := Frozen(prev)
	v.VersionID = ""
	v.DeletedAt, v.Purge = h.Now, h.Now.Add(h.Policy.Retention)
	id, err := FreeStamp(tx, h.Account, h.Container, h.Name, SnapshotPrefix, h.Now)
	if err != nil {
		return err
	}
	return PutState(tx, RecordKey(h.Account, h.Container, h.Name, SnapshotPrefix+id), v, refs)
}

// Frozen returns a read-only copy of a blob state for a snapshot or a
// version: no lease, no uncommitted blocks.
func Frozen(b *Blob) *Blob {
	v := *b
	v.Lease = lease.Lease{}
	v.HasUncommitted, v.BlockIDLen = false, 0
	v.ExpiresOn = time.Time{} // only the base blob expires
	return &v
}

// PutState stores a new record that shares the content of another, taking
// a reference on each of its extents.
func PutState(tx store.Tx, key []byte, b *Blob, refs RefDelta) error {
	exts, err := b.Extents()
	if err != nil {
		return err
	}
	for _, id := range exts {
		refs.Add(id)
	}
	return tx.Put(key, b.Encode())
}

// DropState deletes a record and releases its extent references.
func DropState(tx store.Tx, key []byte, b *Blob, refs RefDelta) error {
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
func protectsInPlace(kind WriteKind) bool {
	return kind == WritePlain || kind == WriteMetadata || kind == WriteIncremental
}
