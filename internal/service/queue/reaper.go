package queue

import (
	"bytes"
	"context"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
)

// The reaper removes expired messages in the background, a bounded batch
// per transaction, so that no request and no transaction does work
// proportional to a backlog of expired messages (150,000 messages expiring
// together once stalled every service behind one transaction on the single
// SQLite writer). Reads that meet more than expiredBound expired messages
// ask it to clear their queue; it also sweeps every queue every
// sweepInterval, for queues that nobody reads. Deletions re-check expiry in
// their own transaction, so every node of a cluster may run one.
const (
	// reapScanBound is the most records one reaper transaction examines.
	reapScanBound = 1024
	sweepInterval = 5 * time.Minute
)

// queueRef names one queue.
type queueRef struct{ account, queue string }

// reaper is the queue of reap requests.
type reaper struct{ requests chan queueRef }

func newReaper() reaper { return reaper{requests: make(chan queueRef, 64)} }

// request asks for a queue to be reaped; a full request queue drops it
// (the next read, or the sweep, asks again).
func (r reaper) request(account, queue string) {
	select {
	case r.requests <- queueRef{account, queue}:
	default:
	}
}

// Run reaps the queues reads ask for, and sweeps every queue every
// sweepInterval, until ctx ends.
func (s *Service) Run(ctx context.Context) {
	sweep := time.NewTicker(sweepInterval)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case q := <-s.reaper.requests:
			s.logReap(s.ReapQueue(ctx, q.account, q.queue))
		case <-sweep.C:
			s.logReap(s.Sweep(ctx))
		}
	}
}

func (s *Service) logReap(n int, err error) {
	server.LogPass(s.log, "queue: reaping expired messages", n, err)
}

// ReapQueue deletes the expired messages of one queue, examining at most
// reapScanBound records and deleting at most expiredBound in each of its
// transactions, and returns how many it deleted.
func (s *Service) ReapQueue(ctx context.Context, account, queue string) (int, error) {
	prefix := msgPrefix(account, queue)
	end := store.PrefixEnd(prefix)
	start := prefix
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		now := nanos(s.clock.Now())
		var last []byte
		var deleted int
		var exhausted bool
		err := s.store.Update(headTurn(ctx, account, queue), func(tx store.Tx) error {
			var keys [][]byte
			visited := 0
			last, deleted = nil, 0
			err := tx.Scan(start, end, store.ScanOptions{Limit: reapScanBound}, func(k, v []byte) bool {
				visited++
				last = bytes.Clone(k)
				if valueExpired(v, now) {
					keys = append(keys, last)
				}
				return len(keys) < expiredBound
			})
			if err != nil {
				return err
			}
			exhausted = visited < reapScanBound && len(keys) < expiredBound
			for _, k := range keys {
				if err := tx.Delete(k); err != nil {
					return err
				}
			}
			deleted = len(keys)
			return nil
		})
		if err != nil {
			return total, err
		}
		total += deleted
		if exhausted || last == nil {
			return total, nil
		}
		start = append(last, 0) // the first key after the last one examined
	}
}

// Sweep reaps every queue of every account, a page of queue records at a
// time, and returns how many messages it deleted.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	prefix := store.NewKey(store.SpaceQueue)
	end := store.PrefixEnd(prefix)
	start := []byte(prefix)
	total := 0
	for {
		var queues []queueRef
		err := s.store.View(ctx, func(tx store.Tx) error {
			queues = queues[:0]
			return tx.Scan(start, end, store.ScanOptions{Limit: 256}, func(k, _ []byte) bool {
				kr := store.ReadKey(k, store.SpaceQueue)
				account, queue := kr.Str(), kr.Str()
				if kr.Err() == nil {
					queues = append(queues, queueRef{account, queue})
				}
				start = append(bytes.Clone(k), 0)
				return true
			})
		})
		if err != nil {
			return total, err
		}
		for _, q := range queues {
			n, err := s.ReapQueue(ctx, q.account, q.queue)
			total += n
			if err != nil {
				return total, err
			}
		}
		if len(queues) < 256 {
			return total, nil
		}
	}
}
