package svcprops

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// localWrites counts writes of service properties made by this process
// (Set, and anything that deletes them wholesale, which calls Forget). A
// cached copy read before the latest of them is never used.
var localWrites atomic.Uint64

// Forget invalidates every cached copy of service properties in this
// process, for code that changes them other than through Set (an admin
// reset deleting an account's records, a load).
func Forget() { localWrites.Add(1) }

// Cache keeps each account's service properties for the CORS headers that
// every GET and HEAD answers (the Vary table of "Cross-Origin Resource
// Sharing (CORS) support for Azure Storage" applies even without an
// Origin), so a read does not pay a second store read. A change made
// through this process is seen at once; a change made by another node over
// a shared store is seen within the cache's lifetime.
type Cache struct {
	st       store.Store
	lifetime time.Duration

	mu      sync.Mutex
	entries map[cacheKey]cached
}

type cacheKey struct{ account, service string }

type cached struct {
	props      Properties
	generation uint64
	loaded     time.Time
}

// CacheLifetime bounds how long another node's change of the properties
// may go unseen by a node's CORS headers.
const CacheLifetime = time.Second

// NewCache returns a cache over st whose entries live for lifetime.
func NewCache(st store.Store, lifetime time.Duration) *Cache {
	return &Cache{st: st, lifetime: lifetime, entries: make(map[cacheKey]cached)}
}

// Get returns the properties of account's service, from the cache when a
// copy is young enough and no local write came after it.
func (c *Cache) Get(ctx context.Context, account, service string) (Properties, error) {
	k := cacheKey{account, service}
	generation := localWrites.Load()
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && e.generation == generation && time.Since(e.loaded) < c.lifetime {
		return e.props, nil
	}
	// The generation was taken before the read: a Set that commits while
	// the read runs moves it on and so disowns what the read returns.
	props, err := Get(ctx, c.st, account, service)
	if err != nil {
		return Properties{}, err
	}
	c.mu.Lock()
	c.entries[k] = cached{props: props, generation: generation, loaded: time.Now()}
	c.mu.Unlock()
	return props, nil
}
