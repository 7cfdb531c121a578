package analytics

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
)

// Services are the services with Storage Analytics logging: the File
// service has none on Azure.
var Services = []string{"blob", "queue", "table"}

// Logs reports whether service has Storage Analytics logging.
func Logs(service string) bool {
	for _, s := range Services {
		if s == service {
			return true
		}
	}
	return false
}

// Category is the kind of request a Logging setting selects.
type Category uint8

// The categories of Set Service Properties' Logging element.
const (
	Read Category = 1 << iota
	Write
	Delete
)

// CategoryOf sorts a request by method: reads are GET and HEAD, deletes
// DELETE, and everything else writes.
func CategoryOf(method string) Category {
	switch method {
	case "GET", "HEAD":
		return Read
	case "DELETE":
		return Delete
	}
	return Write
}

// logTypes is the LogType metadata of a log file: the categories it holds.
func (c Category) logTypes() string {
	var names []string
	for _, t := range []struct {
		c    Category
		name string
	}{{Read, "read"}, {Write, "write"}, {Delete, "delete"}} {
		if c&t.c != 0 {
			names = append(names, t.name)
		}
	}
	return strings.Join(names, ",")
}

// Sink stores log files in an account's $logs container (the Blob
// service). WriteLog creates the blob name only if it does not exist yet
// and reports exists when another writer had it; ListLogs returns the
// names under prefix; DeleteLog removes one.
type Sink interface {
	WriteLog(ctx context.Context, account, name string, body []byte, meta map[string]string) (exists bool, err error)
	ListLogs(ctx context.Context, account, prefix string) ([]string, error)
	DeleteLog(ctx context.Context, account, name string) error
}

// Defaults: a batch is written at least this often, and sooner once it
// holds maxBatch bytes.
const (
	DefaultInterval = time.Minute
	maxBatch        = 4 << 20
)

// Options configure a Logger.
type Options struct {
	// Interval is how often batches are written (DefaultInterval when 0).
	Interval time.Duration
	Logger   *slog.Logger
	// Accounts and Retention drive Purge: the log retention in days (0:
	// keep) of each account's logged service, read afresh at each purge so
	// that a policy changed or turned off applies at once, logging on or
	// not. Without Retention nothing is purged.
	Accounts  []string
	Retention func(ctx context.Context, account, service string) (days int, err error)
}

// Logger buffers entries per account, service and hour and writes each
// buffer as a new log file. The zero Logger is not usable; use New.
type Logger struct {
	sink Sink
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	batches map[batchKey]*batch
	next    map[batchKey]int // the next file number to try
	full    chan struct{}
}

type scope struct{ account, service string }

type batchKey struct {
	scope
	hour time.Time
}

type batch struct {
	lines      strings.Builder
	categories Category
	first      time.Time
	last       time.Time
}

// New returns a Logger writing to sink.
func New(sink Sink, opts Options) *Logger {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Logger{sink: sink, opts: opts, log: log, batches: map[batchKey]*batch{},
		next: map[batchKey]int{}, full: make(chan struct{}, 1)}
}

// Record adds e, of category c, to its hour's batch.
func (l *Logger) Record(e Entry, c Category) {
	line := e.Line() // formatted before the lock: requests record concurrently
	k := batchKey{scope{e.Owner, e.Service}, e.Start.UTC().Truncate(time.Hour)}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.batches[k]
	if b == nil {
		b = &batch{first: e.Start}
		l.batches[k] = b
	}
	b.lines.WriteString(line)
	b.lines.WriteByte('\n')
	b.categories |= c
	b.first, b.last = earlier(b.first, e.Start), later(b.last, e.Start)
	if b.lines.Len() >= maxBatch {
		select {
		case l.full <- struct{}{}:
		default:
		}
	}
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Run writes batches every interval, and once more when ctx ends, and
// applies the retention settings hourly.
func (l *Logger) Run(ctx context.Context) {
	tick := time.NewTicker(l.opts.Interval)
	defer tick.Stop()
	var lastPurge time.Time
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			l.Flush(final)
			cancel()
			return
		case <-tick.C:
		case <-l.full:
		}
		l.Flush(ctx)
		if time.Since(lastPurge) >= time.Hour {
			l.Purge(ctx, time.Now())
			lastPurge = time.Now()
		}
	}
}

// Flush writes every buffered batch as a log file. A batch that cannot be
// written is dropped with a warning: logging never holds memory without
// bound.
func (l *Logger) Flush(ctx context.Context) {
	l.mu.Lock()
	batches := l.batches
	l.batches = map[batchKey]*batch{}
	l.forgetOldNumbers()
	l.mu.Unlock()
	keys := make([]batchKey, 0, len(batches))
	for k := range batches {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].hour.Before(keys[j].hour) })
	for _, k := range keys {
		if err := l.write(ctx, k, batches[k]); err != nil {
			l.log.Warn("storage analytics: a log batch was not written", "account", k.account,
				"service", k.service, "error", err)
		}
	}
}

// forgetOldNumbers drops the file numbers of hours more than a day old,
// which receive no more entries: the map would otherwise grow an entry an
// hour forever. A number forgotten too soon costs only a retry, since
// files are created only where none exists.
func (l *Logger) forgetOldNumbers() {
	cutoff := time.Now().Add(-24 * time.Hour)
	for k := range l.next {
		if k.hour.Before(cutoff) {
			delete(l.next, k)
		}
	}
}

// write stores b under the first free file number of its hour.
func (l *Logger) write(ctx context.Context, k batchKey, b *batch) error {
	meta := map[string]string{
		"LogType":    b.categories.logTypes(),
		"StartTime":  b.first.UTC().Format(startLayout),
		"EndTime":    b.last.UTC().Format(startLayout),
		"LogVersion": Version,
	}
	l.mu.Lock()
	n := l.next[k]
	l.mu.Unlock()
	for ; n < 1_000_000; n++ {
		exists, err := l.sink.WriteLog(ctx, k.account, fileName(k.service, k.hour, n), []byte(b.lines.String()), meta)
		if err != nil {
			return err
		}
		if !exists {
			l.mu.Lock()
			l.next[k] = n + 1
			l.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("no free log file name in %s", hourPrefix(k.service, k.hour))
}

// fileName is <service>/YYYY/MM/DD/hh00/NNNNNN.log.
func fileName(service string, hour time.Time, n int) string {
	return fmt.Sprintf("%s%06d.log", hourPrefix(service, hour), n)
}

func hourPrefix(service string, hour time.Time) string {
	return service + "/" + hour.UTC().Format("2006/01/02/1504") + "/"
}

// Purge deletes, for each account and service whose retention policy is
// on now, the log files of hours that ended more than its days ago.
func (l *Logger) Purge(ctx context.Context, now time.Time) {
	if l.opts.Retention == nil {
		return
	}
	for _, account := range l.opts.Accounts {
		for _, service := range Services {
			s := scope{account, service}
			days, err := l.opts.Retention(ctx, account, service)
			if err == nil && days > 0 {
				err = l.purge(ctx, s, now.AddDate(0, 0, -days))
			}
			if err != nil {
				l.log.Warn("storage analytics: old logs were not deleted", "account", account,
					"service", service, "error", err)
			}
		}
	}
}

func (l *Logger) purge(ctx context.Context, s scope, cutoff time.Time) error {
	names, err := l.sink.ListLogs(ctx, s.account, s.service+"/")
	if err != nil {
		return err
	}
	for _, name := range names {
		hour, ok := hourOf(s.service, name)
		if !ok || !hour.Add(time.Hour).Before(cutoff) {
			continue
		}
		if err := l.sink.DeleteLog(ctx, s.account, name); err != nil {
			return err
		}
	}
	return nil
}

// hourOf reads the hour from a log file's name; ok is false for a name
// Storage Analytics did not give.
func hourOf(service, name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, service+"/")
	if !ok || len(rest) < len("2006/01/02/1504") {
		return time.Time{}, false
	}
	t, err := time.Parse("2006/01/02/1504", rest[:len("2006/01/02/1504")])
	return t, err == nil
}
