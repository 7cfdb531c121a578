package blob

import (
	"bytes"
	"context"

	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// A container that holds a protected version cannot be deleted (Azure
// deletes a container under immutability only once nothing in it is
// protected any more). Rather than read every blob, Delete Container reads
// the protected names of the container: every name one of whose versions
// was ever given a policy or a legal hold has an entry
//
//	store.SpaceBlobIndex (account, "p", container, name)
//
// written by the operation that protected it. Versions and snapshots made
// from a protected state share its name, so they need no entry of their
// own. An entry outlives the protection (a policy ends by the clock); it
// then costs Delete Container a read of that name's states, and goes with
// the container.
const protectedFamily = "p"

func protectedPrefix(account, container string) []byte {
	return store.NewKey(store.SpaceBlobIndex).Str(account).Str(protectedFamily).Str(container)
}

// markProtected records that a version of the named blob was protected.
func markProtected(tx store.Tx, account, container, name string) error {
	return tx.Put(store.Key(protectedPrefix(account, container)).Str(name), nil)
}

// checkNothingProtected is the 409 a Delete Container meets while a
// version of a blob in the container is protected, nil otherwise.
func checkNothingProtected(tx store.Tx, account, container string, now time.Time) error {
	prefix := protectedPrefix(account, container)
	var names []string
	var keyErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, _ []byte) bool {
		kr := store.ReadKey(k, store.SpaceBlobIndex)
		kr.Str()
		kr.Str()
		kr.Str()
		names = append(names, kr.Str())
		keyErr = kr.Err()
		return keyErr == nil
	})
	if err = firstErr(err, keyErr); err != nil {
		return err
	}
	for _, name := range names {
		if err := checkNameUnprotected(tx, account, container, name, now); err != nil {
			return err
		}
	}
	return nil
}

// checkNameUnprotected is the protection error of the first protected
// state of a blob.
func checkNameUnprotected(tx store.Tx, account, container, name string, now time.Time) error {
	start, end := blobdata.StateKeys(account, container, name)
	var found error
	err := tx.Scan(start, end, store.ScanOptions{}, func(_, v []byte) bool {
		rec, err := blobdata.DecodeBlobProperties(v)
		if err != nil {
			found = err
			return false
		}
		if perr := rec.Protection(now); perr != nil {
			found = perr
			return false
		}
		return true
	})
	return firstErr(err, found)
}

// dropProtectedNames removes a container's protected-name entries, a
// batch per Update, as its purge removes the records they name.
func (s *Service) dropProtectedNames(ctx context.Context, account, container string) error {
	prefix := protectedPrefix(account, container)
	for {
		n := 0
		err := s.store.Update(ctx, func(tx store.Tx) error {
			var keys [][]byte
			err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{Limit: purgeBatch}, func(k, _ []byte) bool {
				keys = append(keys, bytes.Clone(k))
				return true
			})
			n = len(keys)
			for _, k := range keys {
				if err == nil {
					err = tx.Delete(k)
				}
			}
			return err
		})
		if err != nil || n < purgeBatch {
			return err
		}
	}
}
