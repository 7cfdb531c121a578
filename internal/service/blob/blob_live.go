package blob

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// loadBlobForWrite is blobdata.LoadLiveBlob for a write: an expired blob is removed
// first, in the write's own transaction, so that the write starts from a
// blob that does not exist and nothing the expired one held leaks.
func loadBlobForWrite(tx store.Tx, account, container, name string, now time.Time) (*blobdata.Blob, error) {
	b, _, err := blobdata.LoadBlob(tx, account, container, name)
	if err != nil || b == nil || !b.ExpiredAt(now) {
		return b, err
	}
	return nil, removeExpired(tx, account, container, name, b, now)
}

// removeExpired removes an expired base blob with its uncommitted blocks
// and index entries, releasing its content.
func removeExpired(tx store.Tx, account, container, name string, b *blobdata.Blob, now time.Time) error {
	refs := blobdata.RefDelta{}
	if err := blobdata.RemoveBlob(tx, account, container, name, b, refs); err != nil {
		return err
	}
	return refs.Apply(tx, now)
}
