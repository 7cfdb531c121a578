package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// retryPolicy bounds how a conflicting Update is run again. The delay before
// attempt n+1 is drawn uniformly from [d/2, d) with d = min(base<<n, max):
// the randomness keeps writers that collided from colliding again in
// lockstep, the growth backs off under sustained contention.
type retryPolicy struct {
	attempts  int
	base, max time.Duration
}

// updateRetry gives a closure 40 attempts, a few seconds of losing, before
// Update gives up.
var updateRetry = retryPolicy{attempts: 40, base: time.Millisecond, max: 100 * time.Millisecond}

// SQLSTATEs after which the whole transaction can run again unchanged.
const (
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
)

// isRetryable reports whether err comes from a serialization failure or a
// deadlock, the two outcomes a serializable transaction may meet through no
// fault of its own.
func isRetryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == serializationFailure || pgErr.Code == deadlockDetected
}

// run calls attempt until it succeeds, fails for a reason retrying cannot
// cure, ctx ends, or p.attempts attempts have conflicted.
func (p retryPolicy) run(ctx context.Context, attempt func() error) error {
	var err error
	for n := 0; n < p.attempts; n++ {
		if n > 0 {
			if werr := sleep(ctx, p.backoff(n-1)); werr != nil {
				return fmt.Errorf("%w (after %d conflicting attempts, last: %v)", werr, n, err)
			}
		}
		err = attempt()
		if err == nil || !isRetryable(err) {
			return err
		}
	}
	return fmt.Errorf("postgres: update still conflicting after %d attempts: %w", p.attempts, err)
}

// backoff is the jittered delay after the n-th (0-based) conflict.
func (p retryPolicy) backoff(n int) time.Duration {
	d := p.max
	if n < 30 && p.base<<n < p.max {
		d = p.base << n
	}
	if d < 2 {
		return d
	}
	return d/2 + rand.N(d/2)
}

// sleep waits for d or until ctx ends, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
