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
	// Account a keeps its blob logs a day; b keeps everything.
	retention := func(_ context.Context, account, service string) (int, error) {
		if account == "a" && service == "blob" {
			return 1, nil
		}
		return 0, nil
	}
	l := New(sink, Options{Interval: time.Hour, Accounts: []string{"a", "b"}, Retention: retention})
	at := time.Date(2026, 11, 25, 1, 30, 0, 0, time.UTC)
	entry := func(account, service, op string, d time.Duration) Entry {
		return Entry{Start: at.Add(d), Owner: account, Service: service, Operation: op, ContentLength: -1}
	}
	l.Record(entry("a", "blob", "PutBlob", 0), Write)
	l.Record(entry("a", "blob", "GetBlob", time.Minute), Read)
	l.Record(entry("a", "blob", "GetBlob", time.Hour), Read) // the next hour
	l.Record(entry("b", "queue", "PutMessage", 0), Write)
	l.Flush(context.Background())
	l.Record(entry("a", "blob", "ListBlobs", 2*time.Minute), Read)
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
	l := New(sink, Options{Interval: time.Hour})
	at := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				l.Record(Entry{Start: at, Owner: "a", Service: "blob", Operation: fmt.Sprintf("op-%d-%d", g, i)}, Read)
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

// Purge reads the retention each time: a policy turned off stops deleting
// at once, and one turned on applies to files written before, whether
// logging is on or not.
func TestPurgeReadsRetentionAfresh(t *testing.T) {
	sink := newMemSink()
	sink.files["a/table/2026/11/20/0300/000000.log"] = "old"
	days := 0
	l := New(sink, Options{Accounts: []string{"a"},
		Retention: func(context.Context, string, string) (int, error) { return days, nil }})
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	l.Purge(context.Background(), now)
	if len(sink.names()) != 1 {
		t.Fatal("a file purged with retention off")
	}
	days = 2
	l.Purge(context.Background(), now)
	if len(sink.names()) != 0 {
		t.Fatal("an old file kept with retention on")
	}
}
