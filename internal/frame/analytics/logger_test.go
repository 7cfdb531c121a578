package analytics

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// memSink is a Sink over a map, as the Blob service's $logs would be.
type memSink struct {
	mu    sync.Mutex
	files map[string]string // account/name -> body
	meta  map[string]map[string]string
}

func newMemSink() *memSink {
	return &memSink{files: map[string]string{}, meta: map[string]map[string]string{}}
}

func (m *memSink) WriteLog(_ context.Context, account, name string, body []byte, meta map[string]string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := account + "/" + name
	if _, ok := m.files[k]; ok {
		return true, nil
	}
	m.files[k], m.meta[k] = string(body), meta
	return false, nil
}

func (m *memSink) ListLogs(_ context.Context, account, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for k := range m.files {
		if name, ok := strings.CutPrefix(k, account+"/"); ok && strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

func (m *memSink) DeleteLog(_ context.Context, account, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, account+"/"+name)
	return nil
}

func (m *memSink) names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for k := range m.files {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Each flush writes a new file per account, service and hour, after the
// files another writer made; retention deletes whole past hours.
func TestLoggerFlushAndPurge(t *testing.T) {
	sink := newMemSink()
	sink.files["a/blob/2026/11/25/0100/000000.log"] = "another node's" // taken
	l := New(sink, time.Hour, nil)
	at := time.Date(2026, 11, 25, 1, 30, 0, 0, time.UTC)
	entry := func(account, service, op string, d time.Duration) Entry {
		return Entry{Start: at.Add(d), Owner: account, Service: service, Operation: op, ContentLength: -1}
	}
	l.Record(entry("a", "blob", "PutBlob", 0), Write, 1)
	l.Record(entry("a", "blob", "GetBlob", time.Minute), Read, 1)
	l.Record(entry("a", "blob", "GetBlob", time.Hour), Read, 1) // the next hour
	l.Record(entry("b", "queue", "PutMessage", 0), Write, 0)
	l.Flush(context.Background())
	l.Record(entry("a", "blob", "ListBlobs", 2*time.Minute), Read, 1)
	l.Flush(context.Background())
	l.Flush(context.Background()) // nothing buffered: no file

	want := []string{"a/blob/2026/11/25/0100/000000.log", "a/blob/2026/11/25/0100/000001.log",
		"a/blob/2026/11/25/0100/000002.log", "a/blob/2026/11/25/0200/000000.log", "b/queue/2026/11/25/0100/000000.log"}
	if got := sink.names(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("files\n got %v\nwant %v", got, want)
	}
	first := sink.files["a/blob/2026/11/25/0100/000001.log"]
	if lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n"); len(lines) != 2 || !strings.Contains(lines[0], ";PutBlob;") {
		t.Fatalf("first batch %q", first)
	}
	meta := sink.meta["a/blob/2026/11/25/0100/000001.log"]
	if meta["LogType"] != "read,write" || meta["StartTime"] != "2026-11-25T01:30:00.0000000Z" ||
		meta["EndTime"] != "2026-11-25T01:31:00.0000000Z" || meta["LogVersion"] != "1.0" {
		t.Fatalf("metadata %v", meta)
	}

	// A day after 02:00 ended, account a's 01:00 files go, its 02:00
	// file stays (it ended less than a day ago); b keeps everything.
	l.Purge(context.Background(), time.Date(2026, 11, 26, 2, 30, 0, 0, time.UTC))
	want = []string{"a/blob/2026/11/25/0200/000000.log", "b/queue/2026/11/25/0100/000000.log"}
	if got := sink.names(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after purge\n got %v\nwant %v", got, want)
	}
}

// Records from many goroutines all land, once each.
func TestLoggerConcurrentRecords(t *testing.T) {
	sink := newMemSink()
	l := New(sink, time.Hour, nil)
	at := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				l.Record(Entry{Start: at, Owner: "a", Service: "blob", Operation: fmt.Sprintf("op-%d-%d", g, i)}, Read, 0)
				if i%25 == 0 {
					l.Flush(context.Background())
				}
			}
		})
	}
	wg.Wait()
	l.Flush(context.Background())
	seen := map[string]int{}
	for _, body := range sink.files {
		for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
			seen[strings.Split(line, ";")[2]]++
		}
	}
	if len(seen) != 800 {
		t.Fatalf("%d distinct entries, want 800", len(seen))
	}
	for op, n := range seen {
		if n != 1 {
			t.Fatalf("%s logged %d times", op, n)
		}
	}
}
