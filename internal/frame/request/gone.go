package request

import (
	"log/slog"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// InterruptedLevel is the level at which to log a response cut short by
// err: debug when the client went away (azerr.ClientGone, the rule the
// error renderer uses too), a warning otherwise: an error reading the
// stored content is worth one.
func InterruptedLevel(r *http.Request, err error) slog.Level {
	if azerr.ClientGone(r, err) {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}
