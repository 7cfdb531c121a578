package blobdata

import (
	"context"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// stageAll stages appends of the given sizes at the given positions of a
// new file and returns it.
func stageAll(t *testing.T, s store.Store, at map[int64]int64) *Blob {
	t.Helper()
	b := &Blob{Type: BlockBlob, Committed: true}
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for pos, size := range at {
			if err := StageAppend(tx, "a", "c", "f", b, pos, Block{Extent: "e" + appendBlockID(pos), Size: size}, time.Unix(0, 0)); err != nil {
				return err
			}
		}
		return SaveBlob(tx, "a", "c", "f", b)
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flush runs FlushAppends on the stored file, with no customer-provided
// key.
func flush(t *testing.T, s store.Store, position int64, retain bool) (*Blob, error) {
	t.Helper()
	return flushWithKey(t, s, position, retain, "")
}

// flushWithKey runs FlushAppends on the stored file with the hash of the
// flush's customer-provided key.
func flushWithKey(t *testing.T, s store.Store, position int64, retain bool, keyHash string) (*Blob, error) {
	t.Helper()
	var b *Blob
	err := s.Update(context.Background(), func(tx store.Tx) error {
		var err error
		if b, _, err = LoadBlob(tx, "a", "c", "f"); err != nil {
			return err
		}
		if err := FlushAppends(tx, "a", "c", "f", b, position, retain, keyHash, RefDelta{}); err != nil {
			return err
		}
		return SaveBlob(tx, "a", "c", "f", b)
	})
	return b, err
}

// A flush takes the appends that run end to end up to its position, in
// position order whatever order they came in, and keeps later ones only
// when asked to.
func TestFlushAppends(t *testing.T) {
	s := memory.New()
	stageAll(t, s, map[int64]int64{5: 3, 0: 5, 8: 2, 20: 1})
	for _, bad := range []int64{4, 6, 9, 11, 21} {
		if _, err := flush(t, s, bad, true); !isCode(err, azerr.InvalidFlushPosition) {
			t.Fatalf("flush at %d: %v, want InvalidFlushPosition", bad, err)
		}
	}
	b, err := flush(t, s, 8, true)
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := b.Segments()
	if b.Size != 8 || len(segs) != 2 || segs[0].Extent != "e"+appendBlockID(0) || !b.HasUncommitted {
		t.Fatalf("after the first flush: size %d, segments %+v, uncommitted %v", b.Size, segs, b.HasUncommitted)
	}
	if _, err := flush(t, s, 5, false); !isCode(err, azerr.InvalidFlushPosition) {
		t.Fatalf("flush below the committed length: %v", err)
	}
	if b, err = flush(t, s, 10, false); err != nil || b.Size != 10 || b.HasUncommitted {
		t.Fatalf("second flush: %+v, %v", b, err)
	}
	if _, err := flush(t, s, 21, false); !isCode(err, azerr.InvalidFlushPosition) {
		t.Fatalf("the append at 20 was dropped, yet a flush to 21 gave %v", err)
	}
}

func isCode(err error, code string) bool {
	e, ok := azerr.As(err)
	return ok && e.Code == code
}

// A block Put Block staged with an ID of the appends' length is not an
// append: a flush leaves it staged, and the file still says it has one.
func TestFlushKeepsOtherBlocks(t *testing.T) {
	s := memory.New()
	stageAll(t, s, map[int64]int64{0: 4})
	other := Block{ID: "blockblockblockblock", Extent: "put-block", Size: 9}
	err := s.Update(context.Background(), func(tx store.Tx) error {
		return tx.Put(BlockKey("a", "c", "f", other.ID), other.Encode())
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := flush(t, s, 4, false)
	if err != nil || b.Size != 4 || !b.HasUncommitted || b.BlockIDLen != appendIDLen {
		t.Fatalf("flush: %+v (%v)", b, err)
	}
	err = s.View(context.Background(), func(tx store.Tx) error {
		blocks, err := LoadBlocks(tx, "a", "c", "f")
		if err == nil && (len(blocks) != 1 || blocks[0].ID != other.ID) {
			t.Errorf("staged after the flush: %+v", blocks)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An append staged under a customer-provided key is committed only by a
// flush that gives the same key; one staged without a key by any flush.
func TestFlushAppendsNeedsTheStagedKey(t *testing.T) {
	s := memory.New()
	b := &Blob{Type: BlockBlob, Committed: true}
	err := s.Update(context.Background(), func(tx store.Tx) error {
		if err := StageAppend(tx, "a", "c", "f", b, 0, Block{Extent: "e0", Size: 4, KeySHA256: "k1"}, time.Unix(0, 0)); err != nil {
			return err
		}
		if err := StageAppend(tx, "a", "c", "f", b, 4, Block{Extent: "e4", Size: 2}, time.Unix(0, 0)); err != nil {
			return err
		}
		return SaveBlob(tx, "a", "c", "f", b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flushWithKey(t, s, 4, true, ""); !isCode(err, azerr.BlobUsesCustomerSpecifiedEncryption) {
		t.Fatalf("flush without the key: %v", err)
	}
	if _, err := flushWithKey(t, s, 4, true, "k2"); !isCode(err, azerr.BlobCustomerSpecifiedEncryptionMismatch) {
		t.Fatalf("flush with another key: %v", err)
	}
	if got, err := flushWithKey(t, s, 4, true, "k1"); err != nil || got.Size != 4 {
		t.Fatalf("flush with the key: %v", err)
	}
	if got, err := flushWithKey(t, s, 6, false, "k2"); err != nil || got.Size != 6 {
		t.Fatalf("flush of data staged without a key: %v", err)
	}
}
