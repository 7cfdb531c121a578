package blobdata

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Data appended to a Data Lake file (Path - Update, action=append) is
// staged until a flush commits it: "Uploaded data is not immediately
// flushed, or written, to the file. To flush, the previously uploaded data
// must be contiguous, the position parameter must be specified and equal
// to the length of the file after all data has been written" (Path -
// Update, position). Each append is one uncommitted block whose ID is its
// position, written with appendIDLen digits so that every append of a
// file has an ID of one length, as a blob's uncommitted blocks must; a
// second append at the same position replaces the first, as a second Put
// Block of one ID does.
const appendIDLen = 20

// appendBlockID is the block ID of data appended at position.
func appendBlockID(position int64) string { return fmt.Sprintf("%0*d", appendIDLen, position) }

// appendPosition reads a block ID appendBlockID wrote; false for a block
// Put Block staged.
func appendPosition(id string) (int64, bool) {
	if len(id) != appendIDLen {
		return 0, false
	}
	p, err := strconv.ParseInt(id, 10, 64)
	return p, err == nil && p >= 0
}

// StageAppend records data, appended at position, as uncommitted data of
// file b, which the caller saves: data's Extent, Size and KeySHA256 (the
// customer-provided key it was sent with, which its flush must give, as
// Put Block List must give a staged block's); its ID and staging time are
// the append's. A block a Put Block staged with an ID of another length
// makes the append 400 InvalidBlobOrBlock, as two such Put Blocks are.
func StageAppend(tx store.Tx, account, container, name string, b *Blob, position int64, data Block, now time.Time) error {
	if b.HasUncommitted && b.BlockIDLen != appendIDLen {
		return azerr.Newf(azerr.InvalidBlobOrBlock, "The specified blob or block content is invalid: the file has uncommitted blocks of the Blob API.")
	}
	id := appendBlockID(position)
	key := BlockKey(account, container, name, id)
	refs := RefDelta{}
	if err := dropBlockAt(tx, key, refs); err != nil {
		return err
	}
	b.HasUncommitted, b.BlockIDLen = true, appendIDLen
	refs.Add(data.Extent)
	data.ID, data.Staged = id, now.UnixNano()
	if err := tx.Put(key, data.Encode()); err != nil {
		return err
	}
	return refs.Apply(tx, now)
}

// dropBlockAt releases the block stored at key, if there is one.
func dropBlockAt(tx store.Tx, key []byte, refs RefDelta) error {
	v, err := tx.Get(key)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	old, err := DecodeBlock(key, v)
	if err != nil {
		return err
	}
	refs.Drop(old.Extent)
	return tx.Delete(key)
}

// FlushAppends commits the data staged in file b from its committed
// length up to position, appending it to b's content (Path - Update,
// action=flush); the caller saves b. The appends must follow each other
// without gap or overlap from the committed length and end exactly at
// position, else the flush is 400 InvalidFlushPosition. With retain the
// appends beyond position stay staged ("If "true", uncommitted data is
// retained after the flush operation completes; otherwise, the
// uncommitted data is deleted", retainUncommittedData); appends before it
// that the flush did not take are dropped either way. An append staged
// under a customer-provided key is only taken with that key (keyHash, the
// flush's; Block.CheckKey).
func FlushAppends(tx store.Tx, account, container, name string, b *Blob, position int64, retain bool, keyHash string, refs RefDelta) error {
	staged, others, err := stagedAppends(tx, account, container, name, b)
	if err != nil {
		return err
	}
	segs, err := b.Segments()
	if err != nil {
		return err
	}
	taken, err := contiguousAppends(staged, b.Size, position, keyHash)
	if err != nil {
		return err
	}
	kept := others
	for _, a := range staged {
		if _, used := taken[a.position]; used || !retain || a.position < position {
			refs.Drop(a.Extent)
			if err := tx.Delete(BlockKey(account, container, name, a.ID)); err != nil {
				return err
			}
			continue
		}
		kept++
	}
	for _, a := range staged {
		if _, used := taken[a.position]; used {
			seg := Segment{Extent: a.Extent, Length: a.Size}
			segs = append(segs, seg)
			refs.Add(seg.Extent)
		}
	}
	b.SetSegments(segs)
	b.Committed = true
	b.HasUncommitted = kept > 0
	if !b.HasUncommitted {
		b.BlockIDLen = 0
	}
	return nil
}

// stagedAppend is an append awaiting its flush.
type stagedAppend struct {
	Block
	position int64
}

// stagedAppends returns b's staged appends in position order, and how
// many other uncommitted blocks it has (Put Block's, which a flush
// leaves alone).
func stagedAppends(tx store.Tx, account, container, name string, b *Blob) (appends []stagedAppend, others int, err error) {
	if !b.HasUncommitted {
		return nil, 0, nil
	}
	blocks, err := LoadBlocks(tx, account, container, name)
	if err != nil {
		return nil, 0, err
	}
	for _, blk := range blocks {
		if p, ok := appendPosition(blk.ID); ok {
			appends = append(appends, stagedAppend{blk, p})
		} else {
			others++
		}
	}
	sort.Slice(appends, func(i, j int) bool { return appends[i].position < appends[j].position })
	return appends, others, nil
}

// contiguousAppends picks the appends that fill [from, to) end to end and
// returns their positions; 400 InvalidFlushPosition when they do not, and
// Block.CheckKey's 409 when one was staged under another key than
// keyHash's.
func contiguousAppends(staged []stagedAppend, from, to int64, keyHash string) (map[int64]struct{}, error) {
	at := map[int64]stagedAppend{}
	for _, a := range staged {
		if a.Size > 0 {
			at[a.position] = a
		}
	}
	taken := map[int64]struct{}{}
	for next := from; next != to; {
		a, ok := at[next]
		if !ok || next > to || a.Size > to-next {
			return nil, azerr.New(azerr.InvalidFlushPosition)
		}
		if err := a.CheckKey(keyHash); err != nil {
			return nil, err
		}
		taken[next] = struct{}{}
		next += a.Size
	}
	return taken, nil
}
