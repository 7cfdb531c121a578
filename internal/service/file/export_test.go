package file

import (
	"context"
	"errors"
	"fmt"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// OpenHandle records an SMB open on the file or directory at path
// ("dir/file", "" for the share's root) of a live share, as the SMB
// endpoint will once it exists.
func OpenHandle(st store.Store, account, share, path string, o smbstate.Open) error {
	return updateSMB(st, account, share, path, func(n *node) { n.Opens = append(n.Opens, o) })
}

// MarkDeletePending sets an entry's SMB delete-pending flag.
func MarkDeletePending(st store.Store, account, share, path string, pending bool) error {
	return updateSMB(st, account, share, path, func(n *node) { n.DeletePending = pending })
}

func updateSMB(st store.Store, account, share, path string, change func(*node)) error {
	fp, err := parsePath(path, true)
	if err != nil {
		return err
	}
	return st.Update(context.Background(), func(tx store.Tx) error {
		n, found, err := loadNode(tx, account, share, "", fp)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("no entry at %q", path)
		}
		change(n)
		return saveNode(tx, account, share, "", fp, n)
	})
}

// MarkShareDeleting marks a live share as being deleted, as the first
// Update of Delete Share does before its records go.
func MarkShareDeleting(st store.Store, account, share string) error {
	return st.Update(context.Background(), func(tx store.Tx) error {
		sh, found, err := loadShare(tx, account, share, "")
		if err != nil || !found {
			return fmt.Errorf("no share %q: %v", share, err)
		}
		sh.Deleting = true
		return saveShare(tx, account, share, "", sh)
	})
}

// FileRecords counts the range records of the file with id in a live share
// and reports whether it has a link record (nfs_hardlink.go).
func FileRecords(st store.Store, account, share string, id uint64) (ranges int, link bool, err error) {
	err = st.View(context.Background(), func(tx store.Tx) error {
		prefix := rangePrefix(account, share, "", id)
		if err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, _ []byte) bool {
			ranges++
			return true
		}); err != nil {
			return err
		}
		_, err := tx.Get(linkKey(account, share, "", id))
		link = err == nil
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
		return err
	})
	return ranges, link, err
}

// StoreLegacyPermission writes a permission record as versions that kept
// permissions as SDDL text wrote it, under the key they derived.
func StoreLegacyPermission(st store.Store, account, share, key, sddlText string) error {
	return st.Update(context.Background(), func(tx store.Tx) error {
		e := record.Encoder{}
		e.Byte(recordFormat)
		e.Str(formatSDDL)
		e.Str(sddlText)
		return tx.Put(permKey(account, share, key), e.Bytes())
	})
}

// StoreShareRecordBefore9 replaces a live share's record with goldenShare
// as stored while its policies were field stagACL, so black-box tests can
// hold the server to shares stored then.
func StoreShareRecordBefore9(st store.Store, account, share string) error {
	return st.Update(context.Background(), func(tx store.Tx) error {
		return tx.Put(shareKey(account, share, ""), fromHex(storedShareBefore9))
	})
}
