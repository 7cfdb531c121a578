package extent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Defaults for a Collector's zero fields.
const (
	// DefaultGrace covers the gap between a reader resolving a record and
	// opening its extent; once open, a reader no longer needs the extent to
	// exist.
	DefaultGrace = time.Minute
	// DefaultOrphanAge is far longer than any write takes to go from a
	// finished extent to the commit that references it.
	DefaultOrphanAge = time.Hour
	// DefaultInterval is Run's period when it is given none.
	DefaultInterval = time.Minute
)

// sweepBatch bounds the records one Update deletes and the extents one
// orphan check looks up, so a large backlog never makes one huge
// transaction.
const sweepBatch = 256

// Collector removes extents that nothing references any more.
//
// A sweep has two passes. The first removes extents whose last reference
// went more than Grace ago: their collection records are deleted in batched
// Updates and each extent is removed only after its batch commits, because
// an Update closure may run more than once. The second removes orphans:
// extents the engine lists that have neither a reference nor a collection
// record and are older than OrphanAge, left by a crash between writing an
// extent and committing the record that would reference it, or between a
// first-pass commit and the removal that follows it.
type Collector struct {
	Engine Engine
	Store  store.Store
	Clock  clock.Clock // nil means clock.Real
	// Grace is how long a freed extent stays readable (0 means DefaultGrace).
	Grace time.Duration
	// OrphanAge is the age, as the engine's List reports it, an unreferenced
	// extent must exceed before it is treated as an orphan (0 means
	// DefaultOrphanAge).
	OrphanAge time.Duration
	Logger    *slog.Logger // nil discards
}

// Sweep runs both passes once and returns how many extents it removed.
// Failures to remove an extent are logged, counted in the returned error and
// retried by the orphan pass of a later sweep.
func (c *Collector) Sweep(ctx context.Context) (removed int, err error) {
	freed, freedErr := c.sweepFreed(ctx)
	orphans, orphanErr := c.sweepOrphans(ctx)
	return freed + orphans, errors.Join(freedErr, orphanErr)
}

// Run sweeps now and then every interval (DefaultInterval when interval is
// not positive) until ctx ends, logging results.
func (c *Collector) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		removed, err := c.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			c.logger().Error("extent sweep failed", "removed", removed, "err", err)
		case removed > 0:
			c.logger().Info("extent sweep", "removed", removed)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// sweepFreed removes extents whose collection record is older than Grace,
// oldest first, one batch at a time.
func (c *Collector) sweepFreed(ctx context.Context) (int, error) {
	cutoff := c.now().Add(-c.grace())
	// Entries freed exactly at the cutoff are kept: they are not yet older
	// than Grace.
	end := store.NewKey(store.SpaceExtentGC).Uint(freedAtNanos(cutoff)).Bytes()
	start := store.NewKey(store.SpaceExtentGC).Bytes()
	var removed int
	var failures removeFailures
	for {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		ids, err := c.dequeueFreed(ctx, start, end)
		if err != nil {
			return removed, errors.Join(failures.err(), err)
		}
		removed += c.removeAll(ctx, ids, &failures)
		if len(ids) < sweepBatch {
			return removed, failures.err()
		}
	}
}

// dequeueFreed deletes up to sweepBatch collection records in [start, end)
// with their reverse lookups and returns the extent IDs they named.
func (c *Collector) dequeueFreed(ctx context.Context, start, end []byte) ([]string, error) {
	var ids []string
	err := c.Store.Update(ctx, func(tx store.Tx) error {
		ids = ids[:0] // the closure may be retried
		var keys [][]byte
		err := tx.Scan(start, end, store.ScanOptions{Limit: sweepBatch}, func(k, _ []byte) bool {
			keys = append(keys, bytes.Clone(k))
			return true
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			id, err := dequeue(tx, k)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// dequeue deletes one collection record and, if it still points at that
// record, its reverse lookup.
func dequeue(tx store.Tx, key []byte) (string, error) {
	r := store.ReadKey(key, store.SpaceExtentGC)
	freedAt, id := r.Uint(), r.Str()
	if r.Err() != nil {
		return "", fmt.Errorf("%w: collection key %x", ErrBadRecord, key)
	}
	if err := tx.Delete(key); err != nil {
		return "", err
	}
	lookupAt, pending, err := pendingSince(tx, id)
	if err != nil || !pending || lookupAt != freedAt {
		return id, err
	}
	return id, tx.Delete(gcLookupKey(id))
}

// sweepOrphans removes listed extents older than OrphanAge that have no
// reference and no collection record, checking them in batches.
func (c *Collector) sweepOrphans(ctx context.Context) (int, error) {
	minAge := c.orphanAge().Seconds()
	var removed int
	var failures removeFailures
	var candidates []string
	flush := func() error {
		orphans, err := c.unreferenced(ctx, candidates)
		candidates = candidates[:0]
		if err != nil {
			return err
		}
		removed += c.removeAll(ctx, orphans, &failures)
		return nil
	}
	err := c.Engine.List(ctx, func(id string, ageSeconds float64) error {
		if ageSeconds <= minAge {
			return nil
		}
		candidates = append(candidates, id)
		if len(candidates) < sweepBatch {
			return nil
		}
		return flush()
	})
	if err == nil && len(candidates) > 0 {
		err = flush()
	}
	return removed, errors.Join(failures.err(), err)
}

// unreferenced returns the IDs among ids that have neither a reference nor
// a pending collection record. A pending record means the first pass owns
// the extent and will remove it once its grace period is over.
func (c *Collector) unreferenced(ctx context.Context, ids []string) ([]string, error) {
	var out []string
	err := c.Store.View(ctx, func(tx store.Tx) error {
		out = out[:0]
		for _, id := range ids {
			n, err := RefCount(tx, id)
			if err != nil {
				return err
			}
			_, pending, err := pendingSince(tx, id)
			if err != nil {
				return err
			}
			if n == 0 && !pending {
				out = append(out, id)
			}
		}
		return nil
	})
	return out, err
}

// removeAll removes ids from the engine, returning how many it removed and
// recording failures; a failed removal is retried as an orphan later.
func (c *Collector) removeAll(ctx context.Context, ids []string, failures *removeFailures) int {
	removed := 0
	for _, id := range ids {
		if err := c.Engine.Remove(ctx, id); err != nil {
			c.logger().Warn("extent removal failed; the orphan sweep will retry it", "extent", id, "err", err)
			failures.add(err)
			continue
		}
		removed++
	}
	return removed
}

// removeFailures summarises engine removal errors without keeping them all.
type removeFailures struct {
	count int
	first error
}

func (f *removeFailures) add(err error) {
	if f.count == 0 {
		f.first = err
	}
	f.count++
}

func (f *removeFailures) err() error {
	if f.count == 0 {
		return nil
	}
	return fmt.Errorf("extent: %d removals failed, first: %w", f.count, f.first)
}

func (c *Collector) now() time.Time {
	if c.Clock == nil {
		return time.Now().UTC()
	}
	return c.Clock.Now()
}

func (c *Collector) grace() time.Duration {
	if c.Grace <= 0 {
		return DefaultGrace
	}
	return c.Grace
}

func (c *Collector) orphanAge() time.Duration {
	if c.OrphanAge <= 0 {
		return DefaultOrphanAge
	}
	return c.OrphanAge
}

func (c *Collector) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}
