package blob

import (
	"bytes"
	"context"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/store"
)

// Blob and block records are keyed by their container's name, so soft
// delete, restore and rename move a container's records to another key
// name. No single bounded transaction can move a container of any size,
// so a move runs in Updates of at most moveBatch records, with the
// container hidden meanwhile: the record whose records leave carries
// MoveTo, the one that receives them MoveFrom (records_container_life.go),
// and every request sees both as absent until the last Update makes the
// destination visible. A crash part-way leaves them hidden; repeating the
// operation finishes the move.
//
// A soft-deleted container keeps its records under a tombstone key name,
// its name and deleted version joined by tombstoneSep, which no request
// can address (the character is not allowed in container names). Its
// blobs leave the tag and expiry indexes while it is deleted, so Find
// Blobs by Tags never finds them and expiry never removes them, and
// enter them again when it is restored.

const moveBatch = 256

// tombstoneSep joins a deleted container's name and version. It never
// appears in a container name and sorts before every character that
// does, so a deleted container lists right after a live one of its name.
const tombstoneSep = "!"

func tombstoneName(name, version string) string { return name + tombstoneSep + version }

// splitTombstone returns the name and version of a tombstone key name; ok
// is false for a live container's name.
func splitTombstone(keyName string) (name, version string, ok bool) {
	return strings.Cut(keyName, tombstoneSep)
}

// indexedName reports whether the blobs under a key name belong in the
// tag and expiry indexes: those of live containers only.
func indexedName(keyName string) bool { return !strings.Contains(keyName, tombstoneSep) }

// containerPrefixes are the key prefixes under which a container's records
// lie: its blobs, its uncommitted blocks and its protected names
// (immutability_container.go).
func containerPrefixes(account, container string) [][]byte {
	return [][]byte{blobPrefix(account, container),
		store.NewKey(store.SpaceBlock).Str(account).Str(container),
		protectedPrefix(account, container)}
}

// moveRecords moves every record of key name from to key name to, a batch
// per Update. Base blobs leave the indexes of from and enter those of to.
func (s *Service) moveRecords(ctx context.Context, account, from, to string) error {
	froms, tos := containerPrefixes(account, from), containerPrefixes(account, to)
	for i := range froms {
		for {
			moved := 0
			err := s.store.Update(ctx, func(tx store.Tx) error {
				var err error
				moved, err = moveBatchOf(tx, froms[i], tos[i], account, from, to)
				return err
			})
			if err != nil {
				return err
			}
			if moved < moveBatch {
				break
			}
		}
	}
	return nil
}

// moveBatchOf moves up to moveBatch records from under one prefix to
// under another.
func moveBatchOf(tx store.Tx, prefix, toPrefix []byte, account, from, to string) (int, error) {
	type kv struct{ k, v []byte }
	var batch []kv
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{Limit: moveBatch}, func(k, v []byte) bool {
		batch = append(batch, kv{bytes.Clone(k), bytes.Clone(v)})
		return true
	})
	if err != nil {
		return 0, err
	}
	for _, r := range batch {
		newKey := append(bytes.Clone(toPrefix), r.k[len(prefix):]...)
		if err := tx.Delete(r.k); err != nil {
			return 0, err
		}
		if err := tx.Put(newKey, r.v); err != nil {
			return 0, err
		}
		if store.Space(prefix[0]) == store.SpaceBlob {
			if err := moveIndexes(tx, account, from, to, r.k, r.v); err != nil {
				return 0, err
			}
		}
	}
	return len(batch), nil
}

// moveIndexes moves a base blob's tag and expiry index entries with it.
func moveIndexes(tx store.Tx, account, from, to string, key, value []byte) error {
	name, elem, err := blobNameFromKey(key)
	if err != nil || (elem != elemBase && !strings.HasPrefix(elem, versionPrefix)) {
		return err
	}
	rec, err := decodeBlobProperties(value)
	if err != nil {
		return err
	}
	if elem != elemBase {
		return moveVersionTags(tx, account, from, to, name, rec)
	}
	if indexedName(from) {
		if err := reindexTags(tx, account, from, name, rec, nil); err != nil {
			return err
		}
		if err := reindexExpiry(tx, account, from, name, rec, nil); err != nil {
			return err
		}
	}
	if indexedName(to) {
		if err := reindexTags(tx, account, to, name, nil, rec); err != nil {
			return err
		}
		return reindexExpiry(tx, account, to, name, nil, rec)
	}
	return nil
}

// moveVersionTags moves a previous version's version tag index entries.
func moveVersionTags(tx store.Tx, account, from, to, name string, rec *blobRecord) error {
	if indexedName(from) {
		if err := dropVersionTags(tx, account, from, name, rec); err != nil {
			return err
		}
	}
	if indexedName(to) {
		return putVersionTags(tx, account, to, name, rec)
	}
	return nil
}
