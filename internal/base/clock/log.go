package clock

import (
	"context"
	"log/slog"
)

// Log writes one record through logger stamped with c's time rather than
// the wall clock, so that a fault's log line tells the time its response
// and the other instants of the request tell (the clock tests drive).
func Log(ctx context.Context, logger *slog.Logger, c Clock, level slog.Level, msg string, args ...any) {
	if !logger.Enabled(ctx, level) {
		return
	}
	rec := slog.NewRecord(c.Now(), level, msg, 0)
	rec.Add(args...)
	_ = logger.Handler().Handle(ctx, rec)
}
