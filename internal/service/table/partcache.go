package table

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// The partition cache keeps recently queried partitions decoded in memory,
// so that a query whose filter is not on the keys evaluates it on ready
// entities instead of reading and decoding every record of the partition
// from the store. An entry is the partition's entities at one partition
// version (version.go); a query uses it only after reading, in its own
// store transaction, that the partition is still at that version, so the
// cache is never a source of truth and needs no invalidation: a write bumps
// the version and the stale entry simply stops matching until LRU order
// drops it.
//
// Only tracked partitions have versions (version.go). A partition of 64
// entities or more that queries scan whole twice becomes tracked
// (track.go), which caches it at its first version; after a write, a
// tracked partition is decoded again the second time a query scans it
// whole at the new version (the first leaves a ghost entry), so a workload
// that writes between every query does not pay for decoding partitions it
// will never reuse.

// Cache sizes: the whole cache, and the largest partition worth caching.
const (
	defaultCacheBytes = 64 << 20
	ghostBytes        = 128 // rough cost of an entry without entities
)

// partKey names a partition of one incarnation of a table.
type partKey struct {
	account, table string // table lower-cased
	tableID        uint64
	pk             string
}

// partState is what the cache holds for a partition.
type partState uint8

const (
	partGhost   partState = iota // scanned whole once at this version
	partTooBig                   // larger than the per-partition cap
	partEntries                  // entities decoded
)

// cachedPart is one entry. Its rows never change once the entry is in the
// cache, so queries read them without a lock, even after eviction; its
// state and size are guarded by partCache.mu and its indexes (partindex.go)
// by idxMu. Version 0 stands for an untracked partition, whose entry only
// counts whole scans (tracked versions start at 1).
type cachedPart struct {
	key        partKey
	version    uint64
	state      partState
	rows       []Entity    // in RowKey order; shared, read-only
	size       int64       // guarded by partCache.mu once published
	prev, next *cachedPart // LRU list, guarded by partCache.mu

	idxMu sync.Mutex
	idx   map[string]propIndex // by property name
}

// partCache is an LRU of cachedPart bounded by their total size.
type partCache struct {
	mu      sync.Mutex
	max     int64 // total bytes
	maxPart int64 // largest partition cached
	used    int64
	// minIndexRows is the smallest partition given property indexes,
	// minTrackRows the smallest partition tracked.
	minIndexRows, minTrackRows int
	m                          map[partKey]*cachedPart
	lru                        cachedPart // sentinel: lru.next is the most recently used
	hits                       atomic.Int64
}

func newPartCache(maxBytes int64) *partCache {
	c := &partCache{max: maxBytes, maxPart: maxBytes / 4, minIndexRows: defaultMinIndexRows,
		minTrackRows: defaultMinTrackRows, m: map[partKey]*cachedPart{}}
	c.lru.next, c.lru.prev = &c.lru, &c.lru
	return c
}

// lookup answers, for each partition of a table at the version a query
// read, its entities when the cache holds them at that version (hit), and
// whether a scan of it should decode it for the cache (fill).
func (c *partCache) lookup(account, table string, tableID uint64, vers []partVersion) (hits []*cachedPart, fill []bool) {
	hits, fill = make([]*cachedPart, len(vers)), make([]bool, len(vers))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, v := range vers {
		e := c.m[partKey{account, table, tableID, v.pk}]
		if e == nil || e.version != v.version {
			continue
		}
		c.touch(e)
		switch e.state {
		case partEntries:
			hits[i] = e
			c.hits.Add(1)
		case partGhost:
			fill[i] = true
		}
	}
	return hits, fill
}

// put records what a query learned about a partition. An entry for a
// later version is kept: versions only grow, so it is the more useful one.
func (c *partCache) put(e *cachedPart) {
	if e.state == partEntries && e.size > c.maxPart {
		e.state, e.rows, e.size = partTooBig, nil, ghostBytes
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[e.key]; old != nil {
		if old.version > e.version || (old.version == e.version && old.state >= e.state) {
			return
		}
		c.remove(old)
	}
	c.m[e.key] = e
	c.used += e.size
	c.pushFront(e)
	c.evict()
}

// markTrack notes that a query scanned untracked partition k whole, and
// reports whether it is the second time, when the partition should become
// tracked. It says so once: the entry then means "tried".
func (c *partCache) markTrack(k partKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	switch {
	case e == nil:
		e = &cachedPart{key: k, state: partGhost, size: ghostBytes + int64(len(k.pk))}
		c.m[k] = e
		c.used += e.size
		c.pushFront(e)
		c.evict()
		return false
	case e.version == 0 && e.state == partGhost:
		e.state = partTooBig
		c.touch(e)
		return true
	}
	return false
}

// grow accounts memory added to a cached entry (an index).
func (c *partCache) grow(e *cachedPart, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[e.key] != e {
		return // evicted or replaced: its memory goes with the last query using it
	}
	e.size += n
	c.used += n
	c.evict()
}

// evict drops least recently used entries until the cache fits its bound.
func (c *partCache) evict() {
	for c.used > c.max && c.lru.prev != &c.lru {
		c.remove(c.lru.prev)
	}
}

func (c *partCache) remove(e *cachedPart) {
	delete(c.m, e.key)
	c.used -= e.size
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *partCache) pushFront(e *cachedPart) {
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}

func (c *partCache) touch(e *cachedPart) {
	e.prev.next, e.next.prev = e.next, e.prev
	c.pushFront(e)
}

// stats reports the entries and bytes held, for tests.
func (c *partCache) stats() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.used
}

// Sizes used to account a decoded partition.
const (
	entitySize   = int64(unsafe.Sizeof(Entity{}))
	propertySize = int64(unsafe.Sizeof(Property{}))
)
