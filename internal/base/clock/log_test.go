package clock

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

func TestLogStampsTheClocksTime(t *testing.T) {
	at := time.Date(2033, 1, 2, 3, 4, 5, 0, time.UTC)
	var out bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	Log(context.Background(), logger, NewFake(at), slog.LevelError, "fault", "k", "v")
	Log(context.Background(), logger, NewFake(at), slog.LevelDebug, "below the level")
	var line struct {
		Time  time.Time `json:"time"`
		Level string    `json:"level"`
		Msg   string    `json:"msg"`
		K     string    `json:"k"`
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	if !line.Time.Equal(at) || line.Level != "ERROR" || line.Msg != "fault" || line.K != "v" {
		t.Fatalf("logged %s", out.String())
	}
}
