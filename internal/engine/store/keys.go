package store

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Tuple encoding. A key is a sequence of elements; each element is written so
// that comparing two keys byte by byte gives the same order as comparing their
// tuples element by element:
//
//   - a string is its bytes with every 0x00 written as 0x00 0xFF, then a
//     terminating 0x00 0x01. A shorter string therefore sorts before any
//     longer string that extends it, exactly as Go compares strings.
//   - an unsigned integer is 8 bytes big-endian.
//
// The first element of every key is a Space byte naming the record kind, so
// each kind has its own key range.

// Space is the first byte of a key: which kind of record it holds.
type Space byte

// Key spaces. Values are persisted: never renumber, only append.
const (
	SpaceMeta      Space = 0x01 // engine/schema metadata
	SpaceAccount   Space = 0x02 // per-account service properties
	SpaceContainer Space = 0x10
	SpaceBlob      Space = 0x11
	SpaceBlock     Space = 0x12 // uncommitted blocks
	SpaceBlobIndex Space = 0x13 // secondary indexes of the blob service (tags, ...)
	SpaceQueue     Space = 0x20
	SpaceMessage   Space = 0x21
	SpaceMsgIndex  Space = 0x22 // queue messages by next-visible time
	SpaceTable     Space = 0x30
	SpaceEntity    Space = 0x31
	SpaceShare     Space = 0x40
	SpaceFile      Space = 0x41 // files and directories
	SpaceFileIndex Space = 0x42
	SpaceExtentRef Space = 0x50 // extent reference counts
	SpaceExtentGC  Space = 0x51 // extents no longer referenced, awaiting collection
)

// SpaceBlobExpiry orders the blobs that have an expiry by its instant, so
// that expired blobs are found without reading the others.
const SpaceBlobExpiry Space = 0x14

// SpaceShareExpiry orders soft-deleted shares by the end of their
// retention, so that the File service purges them without reading the
// others.
const SpaceShareExpiry Space = 0x43

// Key builds a key element by element.
type Key []byte

// NewKey starts a key in the given space.
func NewKey(space Space) Key { return Key{byte(space)} }

// Str appends a string element.
func (k Key) Str(s string) Key {
	for i := 0; i < len(s); i++ {
		if s[i] == 0x00 {
			k = append(k, 0x00, 0xFF)
		} else {
			k = append(k, s[i])
		}
	}
	return append(k, 0x00, 0x01)
}

// Uint appends an unsigned integer element.
func (k Key) Uint(n uint64) Key { return binary.BigEndian.AppendUint64(k, n) }

// Bytes returns the key as a byte slice.
func (k Key) Bytes() []byte { return []byte(k) }

// PrefixEnd returns the smallest key greater than every key that starts with
// prefix, for use as the exclusive end of a prefix Scan. It returns nil (no
// upper bound) when prefix is all 0xFF.
func PrefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// ErrBadKey is returned by a KeyReader that meets a malformed element.
var ErrBadKey = errors.New("store: malformed key")

// KeyReader decodes a key element by element, in the order it was built.
type KeyReader struct {
	rest []byte
	err  error
}

// ReadKey starts decoding key, checking that it is in the given space.
func ReadKey(key []byte, space Space) *KeyReader {
	if len(key) == 0 || Space(key[0]) != space {
		return &KeyReader{err: ErrBadKey}
	}
	return &KeyReader{rest: key[1:]}
}

// Str decodes a string element.
func (r *KeyReader) Str() string {
	if r.err != nil {
		return ""
	}
	var out []byte
	for i := 0; i < len(r.rest); i++ {
		c := r.rest[i]
		if c != 0x00 {
			out = append(out, c)
			continue
		}
		if i+1 >= len(r.rest) {
			break
		}
		switch r.rest[i+1] {
		case 0xFF:
			out = append(out, 0x00)
			i++
		case 0x01:
			r.rest = r.rest[i+2:]
			return string(out)
		default:
			r.err = ErrBadKey
			return ""
		}
	}
	r.err = ErrBadKey
	return ""
}

// Uint decodes an unsigned integer element.
func (r *KeyReader) Uint() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.rest) < 8 {
		r.err = ErrBadKey
		return 0
	}
	n := binary.BigEndian.Uint64(r.rest)
	r.rest = r.rest[8:]
	return n
}

// Err reports the first decoding error, if any.
func (r *KeyReader) Err() error { return r.err }

// DeletePrefix removes every record whose key starts with prefix, reading
// the keys in batches and deleting each batch after its Scan, since a Scan
// callback may not write.
func DeletePrefix(tx Tx, prefix []byte) error {
	const batch = 1000
	end := PrefixEnd(prefix)
	for {
		var keys [][]byte
		err := tx.Scan(prefix, end, ScanOptions{Limit: batch}, func(k, _ []byte) bool {
			keys = append(keys, bytes.Clone(k))
			return true
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		if len(keys) < batch {
			return nil
		}
	}
}
