package blob

import (
	"context"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/keymove"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Blob and block records are keyed by their container's name, so soft
// delete, restore and rename move a container's records to another key
// name, in bounded Updates (package keymove), with the container hidden
// meanwhile: the record whose records leave carries MoveTo, the one that
// receives them MoveFrom (blobdata.ContainerLife), and every request
// sees both as absent until the last Update makes the destination visible.
// A crash part-way leaves them hidden; repeating the operation finishes the
// move.
//
// A soft-deleted container keeps its records under a tombstone key name
// (keymove.Tombstone), which no request can address. Its blobs leave the
// tag and expiry indexes while it is deleted, so Find Blobs by Tags never
// finds them and expiry never removes them, and enter them again when it
// is restored.

const moveBatch = keymove.Batch

func tombstoneName(name, version string) string { return keymove.Tombstone(name, version) }

// splitTombstone returns the name and version of a tombstone key name; ok
// is false for a live container's name.
func splitTombstone(keyName string) (name, version string, ok bool) {
	return keymove.SplitTombstone(keyName)
}

// indexedName reports whether the blobs under a key name belong in the
// tag and expiry indexes: those of live containers only.
func indexedName(keyName string) bool { return !keymove.IsTombstone(keyName) }

// containerPrefixes are the key prefixes under which a container's records
// lie: its blobs, its uncommitted blocks and its protected names
// (immutability_container.go).
func containerPrefixes(account, container string) [][]byte {
	return [][]byte{blobdata.BlobPrefix(account, container),
		store.NewKey(store.SpaceBlock).Str(account).Str(container),
		protectedPrefix(account, container)}
}

// containerSpans are the spans that move a container's records from key
// name from to key name to.
func containerSpans(account, from, to string) []keymove.Span {
	froms, tos := containerPrefixes(account, from), containerPrefixes(account, to)
	spans := make([]keymove.Span, len(froms))
	for i := range froms {
		spans[i] = keymove.Prefix(froms[i], tos[i])
	}
	return spans
}

// moveRecords moves every record of key name from to key name to, a batch
// per Update. Base blobs leave the indexes of from and enter those of to.
func (s *Service) moveRecords(ctx context.Context, account, from, to string) error {
	return keymove.Move(ctx, s.store, containerSpans(account, from, to), moveIndexesOf(account, from, to), nil)
}

// moveIndexesOf moves the index entries of each blob record moved.
func moveIndexesOf(account, from, to string) keymove.Each {
	return func(tx store.Tx, key, value []byte) error {
		if store.Space(key[0]) != store.SpaceBlob {
			return nil
		}
		return moveIndexes(tx, account, from, to, key, value)
	}
}

// moveIndexes moves a base blob's tag and expiry index entries with it.
func moveIndexes(tx store.Tx, account, from, to string, key, value []byte) error {
	name, elem, err := blobdata.BlobNameFromKey(key)
	if err != nil || (elem != blobdata.ElemBase && !strings.HasPrefix(elem, blobdata.VersionPrefix)) {
		return err
	}
	rec, err := blobdata.DecodeBlobProperties(value)
	if err != nil {
		return err
	}
	if elem != blobdata.ElemBase {
		return moveVersionTags(tx, account, from, to, name, rec)
	}
	if indexedName(from) {
		if err := blobdata.ReindexTags(tx, account, from, name, rec, nil); err != nil {
			return err
		}
		if err := blobdata.ReindexExpiry(tx, account, from, name, rec, nil); err != nil {
			return err
		}
	}
	if indexedName(to) {
		if err := blobdata.ReindexTags(tx, account, to, name, nil, rec); err != nil {
			return err
		}
		return blobdata.ReindexExpiry(tx, account, to, name, nil, rec)
	}
	return nil
}

// moveVersionTags moves a previous version's version tag index entries.
func moveVersionTags(tx store.Tx, account, from, to, name string, rec *blobdata.Blob) error {
	if indexedName(from) {
		if err := blobdata.DropVersionTags(tx, account, from, name, rec); err != nil {
			return err
		}
	}
	if indexedName(to) {
		return blobdata.PutVersionTags(tx, account, to, name, rec)
	}
	return nil
}
