package file

import (
	"bytes"
	"context"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
)

// The share reaper purges soft-deleted shares whose retention has ended.
// Requests already treat them as gone (listedShareRecord, restoreShare);
// the reaper only reclaims what they held. It reads store.SpaceShareExpiry,
// ordered by instant, from its start up to now, so a pass costs the shares
// that are due, never the number of shares, and each purge runs in bounded
// Updates (purgeShare). Every purge re-checks the share in its own
// transaction, so every node of a cluster may run a reaper: two nodes
// purging the same share conflict, and one finds nothing left to do.
const (
	reapShareBatch    = 64
	reapShareInterval = time.Second
)

// Run purges expired deleted shares every reapShareInterval until ctx ends
// (server.Background).
func (s *Service) Run(ctx context.Context) {
	server.Every(ctx, reapShareInterval, s.logger, "file: purging deleted shares", s.ReapDeletedShares)
}

// duePurge is an entry of store.SpaceShareExpiry whose instant has come.
type duePurge struct {
	key                []byte
	at                 time.Time
	account, tombstone string
}

// ReapDeletedShares purges every deleted share whose retention has ended
// and returns how many it purged.
func (s *Service) ReapDeletedShares(ctx context.Context) (int, error) {
	now := s.now()
	start := []byte(store.NewKey(store.SpaceShareExpiry))
	end := store.NewKey(store.SpaceShareExpiry).Uint(uint64(now.UnixNano()) + 1)
	total := 0
	for {
		var due []duePurge
		// A pass reads; only a due entry opens a write transaction.
		err := s.store.View(ctx, func(tx store.Tx) error {
			due = due[:0]
			return tx.Scan(start, end, store.ScanOptions{Limit: reapShareBatch}, func(k, _ []byte) bool {
				kr := store.ReadKey(k, store.SpaceShareExpiry)
				p := duePurge{key: bytes.Clone(k), at: time.Unix(0, int64(kr.Uint())).UTC()}
				p.account, p.tombstone = kr.Str(), kr.Str()
				if kr.Err() == nil {
					due = append(due, p)
				}
				return true
			})
		})
		if err != nil {
			return total, err
		}
		for _, p := range due {
			purged, err := s.purgeDeletedShare(ctx, p, now)
			if err != nil {
				return total, err
			}
			if purged {
				total++
			}
		}
		if len(due) < reapShareBatch {
			return total, nil
		}
		start = append(due[len(due)-1].key, 0)
	}
}

// purgeDeletedShare purges the deleted share an entry names when it is
// still deleted and its retention has ended: marked as being deleted
// first, so that a crash part-way leaves it to the next pass (the entry
// goes last). A share restored meanwhile takes its entry away; one being
// restored keeps it until the restore ends.
func (s *Service) purgeDeletedShare(ctx context.Context, p duePurge, now time.Time) (bool, error) {
	purge := false
	err := s.store.Update(ctx, func(tx store.Tx) error {
		purge = false
		sh, found, err := loadShare(tx, p.account, p.tombstone, "")
		switch {
		case err != nil:
			return err
		case !found || !sh.Purge.Equal(p.at):
			return tx.Delete(p.key)
		case sh.MoveTo != "" || !sh.expiredAt(now):
			return nil
		}
		purge = true
		if sh.Deleting {
			return nil
		}
		sh.Deleting = true
		return saveShare(tx, p.account, p.tombstone, "", sh)
	})
	if err != nil || !purge {
		return false, err
	}
	if err := s.purgeShare(ctx, p.account, p.tombstone); err != nil {
		return false, err
	}
	return true, s.store.Update(ctx, func(tx store.Tx) error { return tx.Delete(p.key) })
}
