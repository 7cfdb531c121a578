package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

func TestLogPass(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		err  error
		want string // the level logged, "" for nothing
	}{
		{"a failure", 0, errors.New("disk on fire"), "WARN"},
		{"shutdown", 0, context.Canceled, ""},
		{"a closed store", 3, store.ErrClosed, ""},
		{"work done", 3, nil, "DEBUG"},
		{"nothing due", 0, nil, ""},
	} {
		var out bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
		LogPass(logger, "test: reaping", c.n, c.err)
		got := ""
		if out.Len() > 0 {
			_, rest, _ := strings.Cut(out.String(), "level=")
			got, _, _ = strings.Cut(rest, " ")
		}
		if got != c.want {
			t.Errorf("%s: logged %q (%s), want level %q", c.name, got, strings.TrimSpace(out.String()), c.want)
		}
	}
}
