package extent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Reference counting. Every record that points at an extent (a blob, a
// committed or uncommitted block, a page range, a file) holds one reference,
// taken with Ref in the same Update that writes the record and dropped with
// Unref in the same Update that deletes or replaces it, so counts and records
// never disagree.
//
// Records, all in the extent key spaces of package store:
//
//	SpaceExtentRef  Str(id)                    -> v1, uvarint count (> 0)
//	SpaceExtentGC   Uint(freedAtNanos) Str(id) -> v1
//	SpaceExtentGC   Uint(MaxUint64) Str(id)    -> v1, uint64 freedAtNanos
//
// The first GC form is the collection queue: a scan returns extents in the
// order they became free, so the sweep reads only the ones past their grace
// period. The second is its reverse lookup, which lets Ref withdraw a pending
// entry without scanning the queue. It lives in the same space under the
// largest possible instant, which no UnixNano value reaches, so a sweep that
// scans up to a real cutoff never meets it.

// recordVersion is the first byte of every value written here.
const recordVersion = 1

// lookupMarker is the instant element of a reverse-lookup key.
const lookupMarker = math.MaxUint64

// ErrNotReferenced is returned by Unref for an extent that holds no
// reference: a bookkeeping bug in the caller, reported rather than hidden.
var ErrNotReferenced = errors.New("extent: not referenced")

// ErrBadRecord is returned when a stored reference or collection record
// cannot be decoded.
var ErrBadRecord = errors.New("extent: malformed reference record")

func refKey(id string) []byte { return store.NewKey(store.SpaceExtentRef).Str(id) }

func gcKey(freedAt uint64, id string) []byte {
	return store.NewKey(store.SpaceExtentGC).Uint(freedAt).Str(id)
}

func gcLookupKey(id string) []byte { return gcKey(lookupMarker, id) }

// Ref adds one reference to extent id and withdraws it from collection if it
// was waiting there.
func Ref(tx store.Tx, id string) error {
	if IsInline(id) {
		return nil
	}
	n, err := RefCount(tx, id)
	if err != nil {
		return err
	}
	if n == 0 {
		if err := withdrawFromCollection(tx, id); err != nil {
			return err
		}
	}
	return putCount(tx, id, n+1)
}

// Unref drops one reference to extent id. When the last one goes, the
// extent is queued for collection as freed at now.
func Unref(tx store.Tx, id string, now time.Time) error {
	if IsInline(id) {
		return nil
	}
	n, err := RefCount(tx, id)
	if err != nil {
		return err
	}
	switch {
	case n == 0:
		return fmt.Errorf("%w: %s", ErrNotReferenced, id)
	case n > 1:
		return putCount(tx, id, n-1)
	}
	if err := tx.Delete(refKey(id)); err != nil {
		return err
	}
	return queueForCollection(tx, id, now)
}

// RefCount returns the number of references extent id holds (0 when none).
func RefCount(tx store.Tx, id string) (uint64, error) {
	v, err := tx.Get(refKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) < 2 || v[0] != recordVersion {
		return 0, fmt.Errorf("%w: reference count of %s", ErrBadRecord, id)
	}
	n, size := binary.Uvarint(v[1:])
	if size <= 0 || n == 0 {
		return 0, fmt.Errorf("%w: reference count of %s", ErrBadRecord, id)
	}
	return n, nil
}

func putCount(tx store.Tx, id string, n uint64) error {
	v := binary.AppendUvarint([]byte{recordVersion}, n)
	return tx.Put(refKey(id), v)
}

// queueForCollection writes the collection entry for id and its reverse
// lookup. An entry left by an earlier free is withdrawn first, so an extent
// is queued at most once.
func queueForCollection(tx store.Tx, id string, now time.Time) error {
	if err := withdrawFromCollection(tx, id); err != nil {
		return err
	}
	freedAt := freedAtNanos(now)
	if err := tx.Put(gcKey(freedAt, id), []byte{recordVersion}); err != nil {
		return err
	}
	lookup := binary.BigEndian.AppendUint64([]byte{recordVersion}, freedAt)
	return tx.Put(gcLookupKey(id), lookup)
}

// freedAtNanos is now as a queue position. Instants before 1970 (a badly
// set clock) are clamped to 0, so they sort first instead of wrapping to
// the reverse-lookup marker.
func freedAtNanos(now time.Time) uint64 {
	return uint64(max(now.UnixNano(), 0))
}

// pendingSince reports whether id is queued for collection, and since when.
func pendingSince(tx store.Tx, id string) (freedAt uint64, pending bool, err error) {
	v, err := tx.Get(gcLookupKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if len(v) != 9 || v[0] != recordVersion {
		return 0, false, fmt.Errorf("%w: collection lookup of %s", ErrBadRecord, id)
	}
	return binary.BigEndian.Uint64(v[1:]), true, nil
}

// withdrawFromCollection deletes id's collection entry and lookup, if any.
func withdrawFromCollection(tx store.Tx, id string) error {
	freedAt, pending, err := pendingSince(tx, id)
	if err != nil || !pending {
		return err
	}
	if err := tx.Delete(gcKey(freedAt, id)); err != nil {
		return err
	}
	return tx.Delete(gcLookupKey(id))
}

// Forget drops every reference extent id holds and queues it for
// collection as freed at now: for a wholesale removal of records (the admin
// API's reset) that cannot tell how many references each held.
func Forget(tx store.Tx, id string, now time.Time) error {
	n, err := RefCount(tx, id)
	if err != nil || n == 0 {
		return err
	}
	if err := tx.Delete(refKey(id)); err != nil {
		return err
	}
	return queueForCollection(tx, id, now)
}
