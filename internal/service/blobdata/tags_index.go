package blobdata

import (
	"bytes"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// The tag index lets Find Blobs by Tags read only the blobs that can match.
// Every tag of every current blob has two entries in store.SpaceBlobIndex:
//
//	(account, "t", key, value, container, name)   account-wide queries
//	(account, "tc", container, key, value, name)  queries of one container
//
// and each entry's value is the blob's whole tag set, so that a query with
// several conditions evaluates them on the index alone. The entries change
// in the same Update as the blob record (writeBlob calls ReindexTags), so
// the index never disagrees with the records.
//
// Only base blobs are indexed here (snapshots are not found by tags;
// previous versions have an index of their own, service/blob tags_versions.go). Code
// that removes or restores a base record without going through writeBlob
// must call ReindexTags itself (old, nil) or (nil, new), as purgeContainer
// does.

const (
	tagFamilyAccount   = "t"
	tagFamilyContainer = "tc"
)

// TagIndexPrefix is the start of the account-wide entries of key.
func TagIndexPrefix(account, key string) store.Key {
	return store.NewKey(store.SpaceBlobIndex).Str(account).Str(tagFamilyAccount).Str(key)
}

// ContainerTagIndexPrefix is the start of one container's entries of key.
func ContainerTagIndexPrefix(account, container, key string) store.Key {
	return store.NewKey(store.SpaceBlobIndex).Str(account).Str(tagFamilyContainer).Str(container).Str(key)
}

func tagIndexKeys(account, container, name string, t Tag) (byAccount, byContainer []byte) {
	return TagIndexPrefix(account, t.Key).Str(t.Value).Str(container).Str(name),
		ContainerTagIndexPrefix(account, container, t.Key).Str(t.Value).Str(name)
}

// IndexedTags is what the index holds for a record: the tags of a blob
// with committed content, nothing for a placeholder or no record.
func IndexedTags(b *Blob) TagSet {
	if b == nil || !b.Committed {
		return nil
	}
	return b.Tags
}

// ReindexTags moves a blob's index entries from the tags of old to those
// of rec (either may be nil). An unchanged tag set costs nothing, so
// writes that do not touch tags pay no index work.
func ReindexTags(tx store.Tx, account, container, name string, old, rec *Blob) error {
	before, after := IndexedTags(old), IndexedTags(rec)
	if before.Equal(after) {
		return nil
	}
	for _, t := range before {
		a, c := tagIndexKeys(account, container, name, t)
		if err := tx.Delete(a); err != nil {
			return err
		}
		if err := tx.Delete(c); err != nil {
			return err
		}
	}
	if len(after) == 0 {
		return nil
	}
	var e record.Encoder
	after.Encode(&e)
	for _, t := range after {
		a, c := tagIndexKeys(account, container, name, t)
		if err := tx.Put(a, bytes.Clone(e.Bytes())); err != nil {
			return err
		}
		if err := tx.Put(c, bytes.Clone(e.Bytes())); err != nil {
			return err
		}
	}
	return nil
}
