package blob

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
	elemBase       = ""
	elemDeleted    = "d"
	snapshotPrefix = "s"
	versionPrefix  = "v"
)

// stampLayout is how Azure writes snapshot times and version IDs: UTC with
// seven fractional digits, which also sorts chronologically as text.
const stampLayout = "2006-01-02T15:04:05.0000000Z"

// stamp renders an instant as a snapshot time or version ID.
func stamp(t time.Time) string { return t.UTC().Format(stampLayout) }

// parseStamp reads a snapshot time or version ID in any RFC 3339 form and
// returns it in the canonical form records are keyed by.
func parseStamp(s string) (string, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		// Outside the four-digit years the canonical form has.
		return "", false
	}
	return stamp(t), true
}

// recordKey is the key of one state of a blob.
func recordKey(account, container, name, elem string) []byte {
	return store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(name).Str(elem)
}

// stateKeys is the key range of every state of one blob.
func stateKeys(account, container, name string) (start, end []byte) {
	start = store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(name)
	return start, store.PrefixEnd(start)
}

// selector is which state of a blob a request addresses: the base blob,
// a snapshot (?snapshot=) or a version (?versionid=), both canonical.
type selector struct {
	Snapshot, Version string
}

// base reports whether the request addresses the base blob.
func (s selector) base() bool { return s.Snapshot == "" && s.Version == "" }

// loadState reads the state of a blob that sel addresses, as reads see it:
// nil when it does not exist, is a placeholder for uncommitted blocks, or
// is soft-deleted. A version ID may name the current version, which is
// the base blob.
func loadState(tx store.Tx, account, container, name string, sel selector, now time.Time) (*blobRecord, error) {
	elem := elemBase
	switch {
	case sel.Snapshot != "":
		elem = snapshotPrefix + sel.Snapshot
	case sel.Version != "":
		b, err := loadState(tx, account, container, name, selector{}, now)
		if err != nil || (b != nil && b.VersionID == sel.Version) {
			return b, err
		}
		elem = versionPrefix + sel.Version
	}
	b, err := loadRecord(tx, recordKey(account, container, name, elem))
	if err != nil || b == nil || !b.Committed {
		return nil, err
	}
	if deleted, _ := b.softDeleted(now); deleted || b.expiredAt(now) {
		return nil, nil
	}
	b.loadedFrom = elem
	return b, nil
}

// loadRecord reads and decodes one record; nil when there is none.
func loadRecord(tx store.Tx, key []byte) (*blobRecord, error) {
	v, err := tx.Get(key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeBlob(v)
}

// freeStamp returns the first stamp at or after t that no record of the
// blob with the given prefix uses yet, so that two snapshots taken in the
// same 100 ns tick still get distinct times.
func freeStamp(tx store.Tx, account, container, name, prefix string, t time.Time) (string, error) {
	for {
		id := stamp(t)
		_, err := tx.Get(recordKey(account, container, name, prefix+id))
		if errors.Is(err, store.ErrNotFound) {
			return id, nil
		}
		if err != nil {
			return "", err
		}
		t = t.Add(100 * time.Nanosecond)
	}
}
