package blobdata

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// ExpiryKey is the expiry index entry of a base blob expiring at at.
func ExpiryKey(at time.Time, account, container, name string) []byte {
	return store.NewKey(store.SpaceBlobExpiry).Uint(uint64(at.UnixNano())).Str(account).Str(container).Str(name)
}

// ReindexExpiry moves a base blob's expiry index entry from old's expiry
// to rec's (either may be nil). Paths that drop a record without calling
// it leave an entry behind, which the reaper discards when its instant
// comes, as the record then no longer expires at it.
func ReindexExpiry(tx store.Tx, account, container, name string, old, rec *Blob) error {
	var before, after time.Time
	if old != nil {
		before = old.ExpiresOn
	}
	if rec != nil {
		after = rec.ExpiresOn
	}
	if before.Equal(after) {
		return nil
	}
	if !before.IsZero() {
		if err := tx.Delete(ExpiryKey(before, account, container, name)); err != nil {
			return err
		}
	}
	if after.IsZero() {
		return nil
	}
	return tx.Put(ExpiryKey(after, account, container, name), nil)
}
