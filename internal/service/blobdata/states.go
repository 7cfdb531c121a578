package blobdata

import (
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// The last element of a blob key says which state of the blob a record
// holds. The base blob (the current version) has the empty element, so
// records written before snapshots existed keep their keys; the others
// sort after it, snapshots by creation time and versions by version ID:
//
//	""            the base blob
//	"d"           the soft-deleted base blob (at most one)
//	"s" + stamp   a snapshot, live or soft-deleted
//	"v" + stamp   a previous version, live or soft-deleted
const (
	ElemBase       = ""
	ElemDeleted    = "d"
	SnapshotPrefix = "s"
	VersionPrefix  = "v"
)

// StampLayout is how Azure writes snapshot times and version IDs: UTC with
// seven fractional digits, which also sorts chronologically as text.
const StampLayout = "2006-01-02T15:04:05.0000000Z"

// Stamp renders an instant as a snapshot time or version ID.
func Stamp(t time.Time) string { return t.UTC().Format(StampLayout) }

// ParseStamp reads a snapshot time or version ID in any RFC 3339 form and
// returns it in the canonical form records are keyed by.
func ParseStamp(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		// Outside the four-digit years the canonical form has.
		return "", false
	}
	return Stamp(t), true
}

// RecordKey is the key of one state of a blob.
func RecordKey(account, container, name, elem string) []byte {
	return store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(name).Str(elem)
}

// StateKeys is the key range of every state of one blob.
func StateKeys(account, container, name string) (start, end []byte) {
	start = store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(name)
	return start, store.PrefixEnd(start)
}

// Selector is which state of a blob a request addresses: the base blob,
// a snapshot (?snapshot=) or a version (?versionid=), both canonical.
type Selector struct {
	Snapshot, Version string
}

// Base reports whether the request addresses the base blob.
func (s Selector) Base() bool { return s.Snapshot == "" && s.Version == "" }

// LoadState reads the state of a blob that sel addresses, as reads see it:
// nil when it does not exist, is a placeholder for uncommitted blocks, or
// is soft-deleted. A version ID may name the current version, which is
// the base blob.
func LoadState(tx store.Tx, account, container, name string, sel Selector, now time.Time) (*Blob, error) {
	elem := ElemBase
	switch {
	case sel.Snapshot != "":
		elem = SnapshotPrefix + sel.Snapshot
	case sel.Version != "":
		b, err := LoadState(tx, account, container, name, Selector{}, now)
		if err != nil || (b != nil && b.VersionID == sel.Version) {
			return b, err
		}
		elem = VersionPrefix + sel.Version
	}
	b, err := LoadRecord(tx, RecordKey(account, container, name, elem))
	if err != nil || b == nil || !b.Committed {
		return nil, err
	}
	if deleted, _ := b.SoftDeleted(now); deleted || b.ExpiredAt(now) {
		return nil, nil
	}
	b.LoadedFrom = elem
	return b, nil
}

// LoadRecord reads and decodes one record; nil when there is none.
func LoadRecord(tx store.Tx, key []byte) (*Blob, error) {
	v, err := tx.Get(key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return DecodeBlob(v)
}

// FreeStamp returns the first stamp at or after t that no record of the
// blob with the given prefix uses yet, so that two snapshots taken in the
// same 100 ns tick still get distinct times.
func FreeStamp(tx store.Tx, account, container, name, prefix string, t time.Time) (string, error) {
	for {
		id := Stamp(t)
		_, err := tx.Get(RecordKey(account, container, name, prefix+id))
		if errors.Is(err, store.ErrNotFound) {
			return id, nil
		}
		if err != nil {
			return "", err
		}
		t = t.Add(100 * time.Nanosecond)
	}
}
