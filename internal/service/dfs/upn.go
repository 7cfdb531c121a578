package dfs

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// upn=true (Path - Get Properties, Path - List: "the user identity values
// returned in the x-ms-owner, x-ms-group, and x-ms-acl response headers
// will be transformed from Azure Active Directory Object IDs to User
// Principal Names ... group and application Object IDs are not
// translated because they do not have unique friendly names") answers the
// names Bearer tokens gave (blobdata.SaveUPN): an object ID no token with
// a upn claim has named stays an ID.

// maxKnownNames bounds the names a process remembers having recorded;
// past it the memory starts over, and the next request of each caller
// reads the record again.
const maxKnownNames = 4096

// knownNameLifetime is how long the process trusts its memory of a
// recorded name, or of an account's names being full, before reading the
// store again: the records can go without this process writing (an admin
// reset of the account, here or on another node), and each caller's first
// request after the lifetime then records its name again.
const knownNameLifetime = time.Minute

// knownNames are the object IDs whose name this process has seen in the
// store, so that the requests of a caller already recorded write nothing,
// and the accounts whose names were full (blobdata.MaxUPNs).
type knownNames struct {
	mu    sync.Mutex
	names map[[2]string]knownName // account and object ID
	full  map[string]time.Time    // account: when its names were found full
}

// knownName is a name and when the store was last seen holding it.
type knownName struct {
	upn  string
	seen time.Time
}

// has reports whether the name need not be recorded at now: the store
// held it, or the account's names were full, within the lifetime.
func (k *knownNames) has(account, oid, upn string, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if full, ok := k.full[account]; ok && now.Sub(full) < knownNameLifetime {
		return true
	}
	n, ok := k.names[[2]string{account, oid}]
	return ok && n.upn == upn && now.Sub(n.seen) < knownNameLifetime
}

func (k *knownNames) add(account, oid, upn string, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.names == nil || len(k.names) >= maxKnownNames {
		k.names = map[[2]string]knownName{}
	}
	k.names[[2]string{account, oid}] = knownName{upn: upn, seen: now}
}

// markFull remembers that account's names were full at now, and reports
// whether that is news (not remembered within the lifetime).
func (k *knownNames) markFull(account string, now time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.full == nil || len(k.full) >= maxKnownNames {
		k.full = map[string]time.Time{}
	}
	last, ok := k.full[account]
	k.full[account] = now
	return !ok || now.Sub(last) >= 2*knownNameLifetime
}

// rememberUPN records the user principal name of a request's Bearer
// token for its object ID, when it is new or has changed. A failure is
// logged, never the request's: the name only serves later upn=true reads.
// An account with blobdata.MaxUPNs names records no new one, which is
// logged once while it stays full.
func (s *Service) rememberUPN(r *http.Request) {
	info := request.Of(r)
	id := info.Identity
	if id == nil || id.Kind != auth.Bearer || id.Principal == nil || id.Principal.UPN == "" {
		return
	}
	account, oid, upn := info.Account, id.Principal.ObjectID, id.Principal.UPN
	now := s.now()
	if s.names.has(account, oid, upn, now) {
		return
	}
	err := s.saveUPN(r.Context(), account, oid, upn)
	switch {
	case errors.Is(err, blobdata.ErrUPNsFull):
		if s.names.markFull(account, now) {
			s.logger.Warn("dfs: an account's user principal names are full; new ones are not recorded",
				"account", account, "limit", blobdata.MaxUPNs)
		}
	case err != nil:
		s.logger.Warn("dfs: the user principal name of a token was not recorded",
			"account", account, "oid", oid, "upn", upn, "err", err)
	default:
		s.names.add(account, oid, upn, now)
	}
}

// saveUPN writes oid's name unless the store has it already, which it
// reads first so that only a new or changed name takes a write.
func (s *Service) saveUPN(ctx context.Context, account, oid, upn string) error {
	var stored string
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		stored, err = blobdata.LoadUPN(tx, account, oid)
		return err
	})
	if err != nil || stored == upn {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		return blobdata.SaveUPN(tx, account, oid, upn)
	})
}

// principalNames looks up user principal names within one transaction,
// each object ID once.
type principalNames struct {
	tx      store.Tx
	account string
	looked  map[string]string
}

func newPrincipalNames(tx store.Tx, account string) *principalNames {
	return &principalNames{tx: tx, account: account, looked: map[string]string{}}
}

// of is oid's name, or oid when none is recorded ("$superuser" and the
// empty ID of a base entry are no object's).
func (p *principalNames) of(oid string) (string, error) {
	if oid == "" || oid == posixacl.SuperuserID {
		return oid, nil
	}
	name, ok := p.looked[oid]
	if !ok {
		var err error
		if name, err = blobdata.LoadUPN(p.tx, p.account, oid); err != nil {
			return "", err
		}
		p.looked[oid] = name
	}
	if name == "" {
		return oid, nil
	}
	return name, nil
}

// named is state as upn=true shows it: the owner and the named users of
// the access and default ACLs by name where one is known; the owning
// group and group entries as they are.
func (p *principalNames) named(state blobdata.PosixState) (blobdata.PosixState, error) {
	var err error
	if state.Owner, err = p.of(state.Owner); err != nil {
		return state, err
	}
	acl := make(posixacl.ACL, len(state.ACL))
	for i, e := range state.ACL {
		if e.Tag == posixacl.TagUser {
			if e.ID, err = p.of(e.ID); err != nil {
				return state, err
			}
		}
		acl[i] = e
	}
	state.ACL = acl
	return state, nil
}

// accessAsAsked is state, by name when the request says upn=true, looked
// up in a transaction of its own.
func (s *Service) accessAsAsked(r *http.Request, upn bool, state blobdata.PosixState) (blobdata.PosixState, error) {
	if !upn {
		return state, nil
	}
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		state, err = newPrincipalNames(tx, request.Of(r).Account).named(state)
		return err
	})
	return state, err
}
