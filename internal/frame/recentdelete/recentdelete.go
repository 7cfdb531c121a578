// Package recentdelete remembers the containers and shares deleted in the
// last moments, so that a second Delete of one answers as Azure answers it.
//
// Azure deletes a container or share asynchronously: for about 30 seconds
// after Delete Container or Delete Share the name is "being deleted", and
// a repeat Delete is accepted again (202): the SDKs' recorded lease tests
// (TestContainerReleaseLease, TestShareReleaseLease and others) delete,
// then delete once more in their cleanup, and pass. Lazuli deletes at once,
// so without this a repeat Delete found nothing (404). Azure also refuses
// to create the name again during the window (409 ContainerBeingDeleted);
// Lazuli does not, so that test code which deletes and recreates a name at
// once keeps working as it does on Azurite, and a create forgets the name.
//
// The memory is per node and not durable: a repeat Delete that reaches
// another node of a cluster, or a restarted one, answers 404 as before.
package recentdelete

import (
	"sync"
	"time"
)

// Window is how long a deleted name counts as being deleted.
const Window = 30 * time.Second

// maxNames bounds the memory (trim).
const maxNames = 10000

// Names are recently deleted names, by account and name.
type Names struct {
	mu      sync.Mutex
	deleted map[key]time.Time
}

type key struct{ account, name string }

// New returns an empty set.
func New() *Names { return &Names{deleted: map[key]time.Time{}} }

// Deleted records that account's name was deleted at now.
func (n *Names) Deleted(account, name string, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.deleted) >= maxNames {
		n.trim(now)
	}
	n.deleted[key{account, name}] = now
}

// Recent reports whether account's name was deleted less than Window ago.
func (n *Names) Recent(account, name string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	at, ok := n.deleted[key{account, name}]
	if ok && now.Sub(at) >= Window {
		delete(n.deleted, key{account, name})
		return false
	}
	return ok
}

// Created forgets a name that exists again.
func (n *Names) Created(account, name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.deleted, key{account, name})
}

// trim drops expired names and, when that is not enough, forgets names
// until half the room is free: a forgotten name's repeat Delete answers
// 404, which is all this memory ever saves.
func (n *Names) trim(now time.Time) {
	cutoff := now.Add(-Window)
	for k, at := range n.deleted {
		if at.Before(cutoff) {
			delete(n.deleted, k)
		}
	}
	for k := range n.deleted {
		if len(n.deleted) < maxNames/2 {
			return
		}
		delete(n.deleted, k)
	}
}
