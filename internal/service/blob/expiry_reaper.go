package blob

import (
	"bytes"
	"context"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// The expiry reaper removes the records of expired blobs in the
// background. Requests already treat an expired blob as gone (expiry.go);
// the reaper only reclaims what it held. It reads the expiry index
// (store.SpaceBlobExpiry, ordered by instant) from its start up to now, so
// each pass costs the entries that are due, never the number of blobs,
// and each transaction handles at most reapExpiryBatch of them, so that
// many blobs expiring together never make one long transaction. Every
// removal re-checks the blob in its own transaction, so every node of a
// cluster may run a reaper: two nodes removing the same blob conflict and
// one of them finds nothing left to do.
const (
	reapExpiryBatch    = 128
	reapExpiryInterval = time.Second
)

// Run reaps expired blobs every reapExpiryInterval until ctx ends
// (server.Background).
func (s *Service) Run(ctx context.Context) {
	server.Every(ctx, reapExpiryInterval, s.logger, "blob: reaping expired blobs", s.ReapExpired)
}

// ReapExpired removes every blob whose expiry has come, a batch per
// transaction, and returns how many it removed.
func (s *Service) ReapExpired(ctx context.Context) (int, error) {
	total := 0
	now := s.now()
	start := []byte(store.NewKey(store.SpaceBlobExpiry))
	end := dueEnd(now)
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		// An idle pass reads; it never opens a write transaction.
		if due, err := s.anyDue(ctx, start, end); err != nil || !due {
			return total, err
		}
		var removed, seen int
		var purges []containerPurge
		var lastKey []byte
		err := s.store.Update(ctx, func(tx store.Tx) error {
			removed, seen, purges = 0, 0, nil
			var due [][]byte
			err := tx.Scan(start, end, store.ScanOptions{Limit: reapExpiryBatch}, func(k, _ []byte) bool {
				due = append(due, bytes.Clone(k))
				return true
			})
			if err != nil {
				return err
			}
			seen = len(due)
			if seen > 0 {
				lastKey = due[seen-1]
			}
			for _, k := range due {
				if p, ok := containerPurgeOf(k); ok {
					purges = append(purges, p)
					continue
				}
				gone, err := reapEntry(tx, k, now)
				if err != nil {
					return err
				}
				if gone {
					removed++
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		for _, p := range purges {
			if err := s.purgeDeletedContainer(ctx, p, now); err != nil {
				return total, err
			}
		}
		total += removed
		if seen < reapExpiryBatch {
			return total, nil
		}
		// Entries of protected blobs stay: go on after the last one seen.
		start = append(lastKey, 0)
	}
}

// anyDue reports whether the expiry index holds an entry in [start, end).
func (s *Service) anyDue(ctx context.Context, start, end []byte) (due bool, err error) {
	err = s.store.View(ctx, func(tx store.Tx) error {
		due, err = hasEntry(tx, start, end)
		return err
	})
	return due, err
}

// hasEntry reports whether any record lies in [start, end).
func hasEntry(tx store.Tx, start, end []byte) (bool, error) {
	found := false
	err := tx.Scan(start, end, store.ScanOptions{Limit: 1}, func(_, _ []byte) bool {
		found = true
		return false
	})
	return found, err
}

// dueEnd is the end of the expiry index entries due at now.
func dueEnd(now time.Time) []byte {
	return store.NewKey(store.SpaceBlobExpiry).Uint(uint64(now.UnixNano()) + 1)
}

// containerPurge is a due expiry entry of a soft-deleted container: its
// blob name is empty.
type containerPurge struct {
	key                []byte
	at                 time.Time
	account, tombstone string
}

func containerPurgeOf(key []byte) (containerPurge, bool) {
	kr := store.ReadKey(key, store.SpaceBlobExpiry)
	at := time.Unix(0, int64(kr.Uint())).UTC()
	account, tombstone, name := kr.Str(), kr.Str(), kr.Str()
	if kr.Err() != nil || name != "" {
		return containerPurge{}, false
	}
	return containerPurge{key: key, at: at, account: account, tombstone: tombstone}, true
}

// purgeDeletedContainer removes a soft-deleted container whose retention
// ended: marked as being deleted first, so that a crash part-way leaves it
// to the next pass (the entry goes last), then its records in batches.
func (s *Service) purgeDeletedContainer(ctx context.Context, p containerPurge, now time.Time) error {
	purge := false
	err := s.store.Update(ctx, func(tx store.Tx) error {
		c, _, err := blobdata.LoadContainer(tx, p.account, p.tombstone)
		purge = false
		switch {
		case err != nil:
			return err
		case c == nil || !c.Purge.Equal(p.at) || c.MoveTo != "":
			// Restored, or being restored (which removes the entry).
			if c == nil {
				return tx.Delete(p.key)
			}
			return nil
		case !c.ExpiredAt(now):
			return nil
		}
		purge = true
		c.Deleting = true
		return blobdata.SaveContainer(tx, p.account, p.tombstone, c)
	})
	if err != nil || !purge {
		return err
	}
	if err := s.purgeContainer(ctx, p.account, p.tombstone); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error { return tx.Delete(p.key) })
}

// reapEntry handles one due expiry index entry: the blob it names is
// removed when it still expires at the entry's instant, and the entry goes
// with it, or alone when the blob's expiry changed (it has an entry of its
// own); a protected blob keeps both.
func reapEntry(tx store.Tx, key []byte, now time.Time) (removed bool, err error) {
	kr := store.ReadKey(key, store.SpaceBlobExpiry)
	at := time.Unix(0, int64(kr.Uint())).UTC()
	account, container, name := kr.Str(), kr.Str(), kr.Str()
	if kr.Err() != nil {
		return false, tx.Delete(key)
	}
	b, _, err := blobdata.LoadBlob(tx, account, container, name)
	if err != nil {
		return false, err
	}
	switch {
	case b == nil || !b.ExpiresOn.Equal(at):
		return false, tx.Delete(key)
	case !b.ExpiredAt(now):
		// Protected by a legal hold or a policy: it expires when that
		// ends, and a later pass removes it then.
		return false, nil
	}
	// blobdata.RemoveBlob drops this entry with the record.
	return true, blobdata.RemoveExpired(tx, account, container, name, b, now)
}
