package blobdata

import (
	"bytes"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// The version tag index serves Find Blobs by Tags with include=versions.
// A previous version keeps the tags it had when it stopped being current
// (Set Blob Tags may still change them), so each one is found by its own
// tags. Every previous version with tags has two entries:
//
//	(account, "tv", key, value, container, name, versionID)
//	(account, "tvc", container, key, value, name, versionID)
//
// valued, as in blobdata/tags_index.go, by its whole tag set. The current version
// is the base blob, found through the base index; a query with
// include=versions reads this index first, then the base index, and its
// marker (a key of either) tells which of the two it stopped in.
//
// KeepVersion adds a version's entries, DropState removes them, Set Blob
// Tags on a version and container moves move them. A path that dropped a
// version without DropState would leave its entries stale: the query
// loads the version each entry names and skips those gone, so a stale
// entry costs a read, never a wrong answer.

const (
	tagFamilyVersions          = "tv"
	tagFamilyContainerVersions = "tvc"
)

// VersionTagIndexPrefix is the start of the account-wide version entries
// of key.
func VersionTagIndexPrefix(account, key string) store.Key {
	return store.NewKey(store.SpaceBlobIndex).Str(account).Str(tagFamilyVersions).Str(key)
}

// ContainerVersionTagIndexPrefix is the start of one container's version
// entries of key.
func ContainerVersionTagIndexPrefix(account, container, key string) store.Key {
	return store.NewKey(store.SpaceBlobIndex).Str(account).Str(tagFamilyContainerVersions).Str(container).Str(key)
}

func versionTagIndexKeys(account, container, name, versionID string, t Tag) (byAccount, byContainer []byte) {
	return VersionTagIndexPrefix(account, t.Key).Str(t.Value).Str(container).Str(name).Str(versionID),
		ContainerVersionTagIndexPrefix(account, container, t.Key).Str(t.Value).Str(name).Str(versionID)
}

// PutVersionTags indexes the tags of the previous version b.
func PutVersionTags(tx store.Tx, account, container, name string, b *Blob) error {
	tags := IndexedTags(b)
	if len(tags) == 0 {
		return nil
	}
	var e record.Encoder
	tags.Encode(&e)
	for _, t := range tags {
		a, c := versionTagIndexKeys(account, container, name, b.VersionID, t)
		if err := tx.Put(a, bytes.Clone(e.Bytes())); err != nil {
			return err
		}
		if err := tx.Put(c, bytes.Clone(e.Bytes())); err != nil {
			return err
		}
	}
	return nil
}

// DropVersionTags removes the entries PutVersionTags made for b.
func DropVersionTags(tx store.Tx, account, container, name string, b *Blob) error {
	for _, t := range IndexedTags(b) {
		a, c := versionTagIndexKeys(account, container, name, b.VersionID, t)
		if err := tx.Delete(a); err != nil {
			return err
		}
		if err := tx.Delete(c); err != nil {
			return err
		}
	}
	return nil
}

// dropStateVersionTags removes the version entries of the state stored
// under key when it is a previous version.
func dropStateVersionTags(tx store.Tx, key []byte, b *Blob) error {
	rd := store.ReadKey(key, store.SpaceBlob)
	account, container, name, elem := rd.Str(), rd.Str(), rd.Str(), rd.Str()
	if rd.Err() != nil || len(elem) == 0 || elem[:1] != VersionPrefix {
		return rd.Err()
	}
	return DropVersionTags(tx, account, container, name, b)
}

// VersionTagEntry reads the container, blob name and version ID of a
// version index key.
func VersionTagEntry(k []byte, containerFamily bool) (container, name, versionID string, err error) {
	rd := store.ReadKey(k, store.SpaceBlobIndex)
	rd.Str() // account
	rd.Str() // family
	if containerFamily {
		container = rd.Str()
		rd.Str() // key
		rd.Str() // value
	} else {
		rd.Str() // key
		rd.Str() // value
		container = rd.Str()
	}
	name = rd.Str()
	versionID = rd.Str()
	return container, name, versionID, rd.Err()
}
