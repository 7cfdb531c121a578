package server

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Every runs pass every interval until ctx ends, logging each pass with
// LogPass: the loop of a service's Background work.
func Every(ctx context.Context, interval time.Duration, logger *slog.Logger, what string, pass func(context.Context) (int, error)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			n, err := pass(ctx)
			LogPass(logger, what, n, err)
		}
	}
}

// LogPass logs one pass of background work that did n things: a failure
// as a warning, unless it only says the server is shutting down, and the
// count at debug level.
func LogPass(logger *slog.Logger, what string, n int, err error) {
	switch {
	case err != nil && !shuttingDown(err):
		logger.Warn(what+" failed", "error", err)
	case err == nil && n > 0:
		logger.Debug(what, "count", n)
	}
}

func shuttingDown(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, store.ErrClosed)
}
