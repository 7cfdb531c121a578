package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// With --logFormat json every access-log line is one JSON object carrying
// the request id and the operation.
func TestJSONAccessLog(t *testing.T) {
	cfg, err := config.Parse([]string{"--inMemoryPersistence", "--blobPort", "0", "--services", "blob",
		"--noAdmin", "--logFormat", "json"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr lockedBuffer
	opts, closeLogs, err := logging(cfg, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLogs()
	a, err := app.Start(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	client := blobClient(t, a.ConnectionString())
	if _, err := client.CreateContainer(context.Background(), "logged", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.DeleteContainer(context.Background(), "absent", nil); err == nil {
		t.Fatal("deleted a missing container")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d access-log lines, want 2:\n%s", len(lines), stdout.String())
	}
	want := []struct{ op, code string }{{"CreateContainer", ""}, {"DeleteContainer", "ContainerNotFound"}}
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i, err, line)
		}
		if id, _ := rec["request_id"].(string); len(id) != 36 {
			t.Errorf("line %d: request_id %v", i, rec["request_id"])
		}
		if rec["operation"] != want[i].op || rec["error_code"] != want[i].code {
			t.Errorf("line %d: operation %v error_code %v, want %s %q", i, rec["operation"], rec["error_code"], want[i].op, want[i].code)
		}
	}
}
