package store

import (
	"context"
	"sync/atomic"
)

// checkKey is the context key under which WithCheck records a check.
type checkKey struct{}

// txCheck is a check WithCheck recorded, and whether an Update under it
// has committed, which settles it.
type txCheck struct {
	run     func(Tx) error
	settled atomic.Bool
}

// WithCheck returns a context under which the transactions of a Checked
// store run check first, in the transaction's own snapshot, and fail with
// its error, until the first Update under the context commits. It is for
// a decision made before a request's transactions that must still hold
// when its write commits: a permission read from records another request
// may change between the decision and the write (a path's ACLs). Taken
// again inside the write's transaction, the decision commits with the
// write it allowed, and a serializable engine retries or aborts the write
// when those records change under it. The transactions after that commit
// only read back what the write did, which may have changed what the
// check reads (a delete removes the path it asked about), so they run
// unchecked.
//
// check must only read through the Tx it is given. Checks nest: a context
// already carrying one runs both, the earlier first.
func WithCheck(ctx context.Context, check func(Tx) error) context.Context {
	if earlier := checkOf(ctx); earlier != nil {
		later := check
		check = func(tx Tx) error {
			if err := earlier.run(tx); err != nil {
				return err
			}
			return later(tx)
		}
	}
	return context.WithValue(ctx, checkKey{}, &txCheck{run: check})
}

func checkOf(ctx context.Context) *txCheck {
	check, _ := ctx.Value(checkKey{}).(*txCheck)
	return check
}

// Checked returns st running the check WithCheck recorded in a View's or
// Update's context at the start of its transaction. Transactions whose
// context carries none, or a settled one, run as st runs them.
func Checked(st Store) Store {
	if c, ok := st.(checked); ok {
		return c
	}
	return checked{st}
}

type checked struct{ Store }

func (c checked) View(ctx context.Context, fn func(Tx) error) error {
	return c.Store.View(ctx, withCheck(checkOf(ctx), fn))
}

func (c checked) Update(ctx context.Context, fn func(Tx) error) error {
	check := checkOf(ctx)
	err := c.Store.Update(ctx, withCheck(check, fn))
	if err == nil && check != nil {
		check.settled.Store(true)
	}
	return err
}

// withCheck is fn preceded by check while it is unsettled.
func withCheck(check *txCheck, fn func(Tx) error) func(Tx) error {
	if check == nil || check.settled.Load() {
		return fn
	}
	return func(tx Tx) error {
		if err := check.run(tx); err != nil {
			return err
		}
		return fn(tx)
	}
}
