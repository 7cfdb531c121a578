package request

import (
	"errors"
	"log/slog"
	"net/http"
	"syscall"
)

// ClientGone reports whether err, met while writing r's response, only
// means that the client went away: it closed the connection (EPIPE,
// ECONNRESET) or the request's context ended. That is routine (a download
// cancelled, a benchmark stopping) and is not worth a warning, unlike an
// error reading the stored content.
func ClientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// InterruptedLevel is the level at which to log a response cut short by
// err: debug when the client went away, a warning otherwise.
func InterruptedLevel(r *http.Request, err error) slog.Level {
	if ClientGone(r, err) {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}
