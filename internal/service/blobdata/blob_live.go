package blobdata

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// LoadBlobForWrite is LoadLiveBlob for a write: an expired blob is removed
// first, in the write's own transaction, so that the write starts from a
// blob that does not exist and nothing the expired one held leaks.
func LoadBlobForWrite(tx store.Tx, account, container, name string, now time.Time) (*Blob, error) {
	b, _, err := LoadBlob(tx, account, container, name)
	if err != nil || b == nil || !b.ExpiredAt(now) {
		return b, err
	}
	return nil, RemoveExpired(tx, account, container, name, b, now)
}

// RemoveExpired removes an expired base blob with its uncommitted blocks
// and index entries, releasing its content.
func RemoveExpired(tx store.Tx, account, container, name string, b *Blob, now time.Time) error {
	refs := RefDelta{}
	if err := RemoveBlob(tx, account, container, name, b, refs); err != nil {
		return err
	}
	return refs.Apply(tx, now)
}
