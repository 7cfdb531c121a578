package blobdata

import (
	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Block is a block staged by Put Block and not yet committed.
type Block struct {
	ID     string // decoded block id
	Extent string
	Size   int64
	// Staged orders Get Block List's uncommitted list by upload.
	Staged int64
	// KeySHA256 is the hash of the customer-provided key the block was
	// staged with: Put Block List must give the same key to commit it.
	// Stored after Staged only when set, so records written before it read
	// as staged without a key.
	KeySHA256 string
}

func BlockKey(account, container, blob, id string) []byte {
	return store.NewKey(store.SpaceBlock).Str(account).Str(container).Str(blob).Str(id)
}

// blockPrefix is the key prefix of every uncommitted block of one blob.
func blockPrefix(account, container, blob string) []byte {
	return store.NewKey(store.SpaceBlock).Str(account).Str(container).Str(blob)
}

func (u *Block) Encode() []byte {
	e := record.NewEncoder(48)
	e.Byte(recordFormat)
	e.Str(u.Extent)
	e.Uvarint(uint64(u.Size))
	e.Varint(u.Staged)
	if u.KeySHA256 != "" {
		e.Str(u.KeySHA256)
	}
	return e.Bytes()
}

func DecodeBlock(key, v []byte) (Block, error) {
	r := store.ReadKey(key, store.SpaceBlock)
	r.Str()
	r.Str()
	r.Str()
	u := Block{ID: r.Str()}
	if r.Err() != nil || len(v) == 0 || v[0] != recordFormat {
		return u, record.ErrMalformed
	}
	d := record.NewDecoder(v[1:])
	u.Extent = d.Str()
	u.Size = int64(d.Uvarint())
	u.Staged = d.Varint()
	if d.Len() > 0 {
		u.KeySHA256 = d.Str()
	}
	return u, d.Err()
}

// LoadBlocks returns every uncommitted block of a blob, in key order.
func LoadBlocks(tx store.Tx, account, container, blob string) ([]Block, error) {
	prefix := blockPrefix(account, container, blob)
	var blocks []Block
	var decodeErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		b, err := DecodeBlock(k, v)
		if err != nil {
			decodeErr = err
			return false
		}
		blocks = append(blocks, b)
		return true
	})
	if err != nil {
		return nil, err
	}
	return blocks, decodeErr
}
