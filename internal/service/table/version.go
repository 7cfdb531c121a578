package table

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Partition versions. A partition that queries keep reading whole becomes
// tracked (tableRecord.Tracked): it gets a version record, a counter that
// every entity write to the partition increments in the same transaction
// as the write. A transaction that reads the version therefore knows
// exactly which state of the partition it sees, on any node of a shared
// store, which is what lets the query path serve the partition from the
// in-process cache (partcache.go) without ever serving stale rows. Writes
// to the other partitions pay nothing: whether a partition is tracked is
// in the table record that every write reads anyway. On a store shared by
// several nodes, concurrent writes to one tracked partition conflict on its
// version record, which is why only partitions worth caching are tracked.
//
// The records live beside the table's entities, under
//
//	(SpaceEntity, account, lower-cased table + "\x00pv", PartitionKey)
//
// Table names are alphanumeric, so that second element is never a table's,
// and the records stay outside every entity key range. The value is the
// counter, 8 bytes big-endian. A tracked partition stays tracked (and its
// version never repeats) while the table exists; records go with the
// table, and a table created again gets a new tableRecord.ID, so cached
// partitions of the old one are never mistaken for the new one's.

// versionPrefix is the key prefix of a table's partition versions.
func versionPrefix(account, table string) store.Key {
	return store.NewKey(store.SpaceEntity).Str(account).Str(lowerName(table) + "\x00pv")
}

// touchPartition bumps the version of partition pk if tbl tracks it; every
// Update that writes entities of the partition calls it once.
func touchPartition(tx store.Tx, tbl *tableRecord, account, table, pk string) error {
	if !tbl.tracks(pk) {
		return nil
	}
	_, err := bumpPartition(tx, account, table, pk)
	return err
}

// bumpPartition increments the version of a partition, creating it at 1,
// and returns the new version.
func bumpPartition(tx store.Tx, account, table, pk string) (uint64, error) {
	key := keyWith(versionPrefix(account, table), pk).Bytes()
	var n uint64
	v, err := tx.Get(key)
	switch {
	case err == nil && len(v) == 8:
		n = binary.BigEndian.Uint64(v)
	case err == nil:
		return 0, errBadRecord
	case !errors.Is(err, store.ErrNotFound):
		return 0, err
	}
	return n + 1, tx.Put(key, binary.BigEndian.AppendUint64(nil, n+1))
}

// partVersion is a partition's version as one transaction sees it.
type partVersion struct {
	pk      string
	version uint64
}

// partitionVersions lists, in key order, the version of every tracked
// partition whose entities may lie in the entity key range [start, end) of
// the table whose entity prefix is prefix.
func partitionVersions(tx store.Tx, prefix, vprefix store.Key, start, end []byte) ([]partVersion, error) {
	lo, hi := versionBounds(prefix, vprefix, start, end)
	var out []partVersion
	var derr error
	err := tx.Scan(lo, hi, store.ScanOptions{}, func(k, v []byte) bool {
		pk, _, ok := keyElement(k[len(vprefix):])
		if !ok || len(v) != 8 {
			derr = errBadRecord
			return false
		}
		out = append(out, partVersion{pk: strings.Clone(pk), version: binary.BigEndian.Uint64(v)})
		return true
	})
	if err == nil {
		err = derr
	}
	return out, err
}

// versionBounds maps an entity key range onto the version records of the
// partitions it may touch. Partition P's entities all start with
// prefix+enc(P) and its version key is vprefix+enc(P), so the end maps by
// swapping the prefixes; the start keeps only its PartitionKey element,
// since a start inside a partition still touches that partition. A start
// whose tail is an incomplete element orders against whole elements just as
// it does in the entity space.
func versionBounds(prefix, vprefix store.Key, start, end []byte) (lo, hi []byte) {
	lo = vprefix
	if len(start) > len(prefix) && string(start[:len(prefix)]) == string(prefix) {
		tail := start[len(prefix):]
		if _, rest, ok := keyElement(tail); ok {
			tail = tail[:len(tail)-len(rest)]
		}
		lo = append(append(make([]byte, 0, len(vprefix)+len(tail)), vprefix...), tail...)
	}
	hi = store.PrefixEnd(vprefix)
	if len(end) > len(prefix) && string(end[:len(prefix)]) == string(prefix) {
		hi = append(append(make([]byte, 0, len(vprefix)+len(end)-len(prefix)), vprefix...), end[len(prefix):]...)
	}
	return lo, hi
}
