package blobdata

import (
	"bytes"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Move is one rename of the dfs API (Path - Create with mode=legacy or
// posix): a blob, or a directory with every blob under it, moves to a new
// name in the same account, in the caller's transaction.
type Move struct {
	Account             string
	FromContainer, From string
	ToContainer, To     string
	// Tree moves every blob named From/... too (From is a directory).
	Tree bool
	// Now is when the move runs: a record protected then (a legal hold,
	// an unexpired immutability policy) stops it.
	Now time.Time
}

// Run moves every record of the blobs the move covers (base blob,
// snapshots, versions, the soft-deleted copy) and their uncommitted
// blocks to the new names, and moves their entries in the tag, version
// tag and expiry indexes. The records keep their content: extents are
// shared by reference, so a move rewrites keys and copies no byte, and
// the references move with the records. It returns how many blobs moved.
// The destination names must be free (the caller removed what was there).
// A protected record stops the move with its Protection error, nothing
// moved: a rename changes the name it is kept under, and the index of
// protected names (which Delete Container reads) stays with the old one.
func (m Move) Run(tx store.Tx) (int, error) {
	recs, err := recordsUnder(tx, m.Account, m.FromContainer, m.From, m.Tree)
	if err != nil {
		return 0, err
	}
	moved := 0
	for _, rec := range recs {
		if err := m.moveRecord(tx, rec); err != nil {
			return moved, err
		}
		if rec.elem == ElemBase {
			moved++
		}
	}
	return moved, m.moveBlocks(tx)
}

// rename is the new name of name, which is From or under it.
func (m Move) rename(name string) string { return m.To + name[len(m.From):] }

// moveRecord moves one state record and its index entries.
func (m Move) moveRecord(tx store.Tx, rec treeRecord) error {
	b, err := DecodeBlob(rec.value)
	if err != nil {
		return err
	}
	if err := b.Protection(m.Now); err != nil {
		return err
	}
	to := m.rename(rec.name)
	switch {
	case rec.elem == ElemBase:
		if err := errors.Join(ReindexTags(tx, m.Account, m.FromContainer, rec.name, b, nil),
			ReindexExpiry(tx, m.Account, m.FromContainer, rec.name, b, nil)); err != nil {
			return err
		}
		if err := errors.Join(ReindexTags(tx, m.Account, m.ToContainer, to, nil, b),
			ReindexExpiry(tx, m.Account, m.ToContainer, to, nil, b)); err != nil {
			return err
		}
	case rec.elem[:1] == VersionPrefix:
		if err := DropVersionTags(tx, m.Account, m.FromContainer, rec.name, b); err != nil {
			return err
		}
		if err := PutVersionTags(tx, m.Account, m.ToContainer, to, b); err != nil {
			return err
		}
	}
	if err := tx.Delete(rec.key); err != nil {
		return err
	}
	return tx.Put(RecordKey(m.Account, m.ToContainer, to, rec.elem), rec.value)
}

// moveBlocks moves the uncommitted block records of the blobs moved.
func (m Move) moveBlocks(tx store.Tx) error {
	type block struct {
		key, value []byte
		name, id   string
	}
	var blocks []block
	var keyErr error
	collect := func(prefix []byte) error {
		return tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
			rd := store.ReadKey(k, store.SpaceBlock)
			rd.Str()
			rd.Str()
			name, id := rd.Str(), rd.Str()
			if keyErr = rd.Err(); keyErr != nil {
				return false
			}
			blocks = append(blocks, block{bytes.Clone(k), bytes.Clone(v), name, id})
			return true
		})
	}
	err := collect(blockPrefix(m.Account, m.FromContainer, m.From))
	if err == nil && m.Tree {
		prefix := store.NewKey(store.SpaceBlock).Str(m.Account).Str(m.FromContainer).Str(m.From + "/")
		err = collect(prefix[:len(prefix)-2])
	}
	if err = errors.Join(err, keyErr); err != nil {
		return err
	}
	for _, b := range blocks {
		if err := tx.Delete(b.key); err != nil {
			return err
		}
		if err := tx.Put(BlockKey(m.Account, m.ToContainer, m.rename(b.name), b.id), b.value); err != nil {
			return err
		}
	}
	return nil
}
