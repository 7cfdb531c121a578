// Package bench measures an Azure Storage endpoint: Lazuli, Azurite, the
// real service, or a null HTTP server that shows what the machine's HTTP
// stack allows. Each scenario prepares its data, warms up, then runs for a
// fixed time at a fixed concurrency with a lean raw-HTTP client (or, with
// Options.SDK, the official Azure SDK for Go clients), and reports
// throughput, latency quantiles and errors by code. Compare mode alternates
// two targets (A B A B ...) and reports the ratio of medians so that machine
// noise cancels.
package bench

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/cputime"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// Target is an endpoint to measure.
type Target struct {
	Name                                 string
	BlobURL, QueueURL, TableURL, FileURL string // base URLs including the account path for path-style
	Account, Key                         string
	// Nodes are further nodes serving the same data (a scale-out setup):
	// the lean client spreads its requests over this target and its nodes
	// in turn. The SDK driver uses the first node only.
	Nodes []Target
	// null, when set, tells the null server each scenario's response body
	// size.
	null nullControl
	// Server is the process serving the target, when known: its CPU time
	// gives the server's CPU per operation, and a target with a start script
	// is restarted before each scenario.
	Server *Process
}

func (t Target) keyBytes() ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(t.Key)
	if err != nil {
		return nil, fmt.Errorf("target %s: account key is not base64: %w", t.Name, err)
	}
	return k, nil
}

func (t Target) endpoint(svc auth.Service) string {
	switch svc {
	case auth.Blob:
		return strings.TrimSuffix(t.BlobURL, "/")
	case auth.Queue:
		return strings.TrimSuffix(t.QueueURL, "/")
	case auth.Table:
		return strings.TrimSuffix(t.TableURL, "/")
	case auth.File:
		return strings.TrimSuffix(t.FileURL, "/")
	}
	return ""
}

// ParseConnectionString builds a target from an Azure connection string.
func ParseConnectionString(name, cs string) (Target, error) {
	t := Target{Name: name}
	for _, part := range strings.Split(cs, ";") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "accountname":
			t.Account = v
		case "accountkey":
			t.Key = v
		case "blobendpoint":
			t.BlobURL = v
		case "queueendpoint":
			t.QueueURL = v
		case "tableendpoint":
			t.TableURL = v
		case "fileendpoint":
			t.FileURL = v
		}
	}
	if t.Account == "" || t.Key == "" {
		return t, errors.New("connection string needs AccountName and AccountKey")
	}
	return t, nil
}

// Options control a run.
type Options struct {
	Duration    time.Duration
	Warmup      time.Duration
	Concurrency int
	// QueueDepth is how many messages queue-get-delete keeps queued.
	QueueDepth int
	// ExpiringMessages is the backlog of expired queue messages that
	// blob-put-1k-expiring measures Put Blob beside (0: none, the baseline).
	ExpiringMessages int
	// ListBlobs is how many blobs list-blobs and list-blobs-delimited list.
	ListBlobs int
	// TableRows is how many entities the table-query scenarios query (0:
	// 20,000).
	TableRows int
	// TaggedBlobs is how many tagged blobs find-blobs-tags searches (0:
	// 10,000).
	TaggedBlobs int
	// SDK drives the scenarios through the official Azure SDK for Go
	// clients instead of the lean raw-HTTP client: same names, data and
	// operations, plus the SDK's own cost.
	SDK bool
	// small shrinks the scenarios' fixed data sets (blob and row counts,
	// the 256 MiB transfers) so that tests under the race detector stay
	// short. The command never sets it.
	small bool
}

// Result is one scenario measured on one target.
type Result struct {
	Target    string  `json:"target"`
	Scenario  string  `json:"scenario"`
	Ops       int64   `json:"ops"`
	Seconds   float64 `json:"seconds"`
	OpsPerSec float64 `json:"ops_per_sec"`
	MBPerSec  float64 `json:"mb_per_sec,omitempty"`
	P50ms     float64 `json:"p50_ms"`
	P99ms     float64 `json:"p99_ms"`
	P999ms    float64 `json:"p999_ms"`
	// CPUusPerOp is this process's CPU time per operation in microseconds:
	// for a target served in this process (--in-process) client and server,
	// for a child process or an external target the client alone (the
	// server's own is ServerCPUusPerOp).
	CPUusPerOp float64 `json:"cpu_us_per_op,omitempty"`
	// ServerCPUusPerOp is the server process's CPU time per operation in
	// microseconds, when the benchmark knows that process (Target.Server).
	ServerCPUusPerOp float64 `json:"server_cpu_us_per_op,omitempty"`
	// ServerRSSMB is the server process's resident memory when the
	// measured window ends, in MB (10^6 bytes), when that process is known.
	ServerRSSMB float64          `json:"server_rss_mb,omitempty"`
	Errors      map[string]int64 `json:"errors,omitempty"`
	// Skipped says why the scenario was not run on this target (one
	// whose account lacks what the scenario measures), empty when it ran.
	Skipped string `json:"skipped,omitempty"`
}

// env is what a scenario's setup gets.
type env struct {
	target  Target
	c       *client    // the lean client, unless opts.SDK
	sdk     *sdkClient // the SDK clients, when opts.SDK
	opts    Options
	prefix  string // unique per scenario run, for container/queue/table names
	workers int
}

// size is full, or small when the options ask for small data sets.
func (e *env) size(full, small int) int {
	if e.opts.small {
		return small
	}
	return full
}

// op performs one measured operation and returns the payload bytes moved.
type op func(ctx context.Context, worker, seq int) (int64, error)

// scenario is one benchmark.
type scenario struct {
	name string
	svc  auth.Service
	// workers overrides the concurrency (e.g. one 256 MiB upload at a time,
	// each with its own parallel blocks).
	workers int
	// nullBody is the body size the null target answers with.
	nullBody int
	// hns says the scenario needs an account with a hierarchical
	// namespace; on any other it is skipped (Result.Skipped).
	hns bool
	// once marks an operation that consumes its data and so cannot repeat
	// (a recursive delete): no warm-up, and each worker performs one
	// operation, timed, within the window.
	once bool
	// setup prepares data with the lean client and returns the op and a
	// cleanup (sdkSetups holds its SDK version, in builds that have one).
	setup setupFunc
}

// setupFunc prepares a scenario's data and returns its op and a cleanup.
type setupFunc func(ctx context.Context, e *env) (op, func(context.Context), error)

// Run measures each named scenario once on t.
func Run(ctx context.Context, t Target, names []string, opts Options) ([]Result, error) {
	var out []Result
	for _, name := range names {
		s, ok := scenarioByName(name)
		if !ok {
			return out, fmt.Errorf("unknown scenario %q", name)
		}
		r, err := runScenario(ctx, t, s, opts)
		if err != nil {
			return out, fmt.Errorf("%s on %s: %w", name, t.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func runScenario(ctx context.Context, t Target, s scenario, opts Options) (Result, error) {
	workers := opts.Concurrency
	if s.workers > 0 {
		workers = s.workers
	}
	if t.Server.restartable() {
		if err := t.Server.restart(ctx); err != nil {
			return Result{}, err
		}
	}
	e := &env{target: t, opts: opts, prefix: s.shortName() + randomHex(4), workers: workers}
	setup, err := e.connect(t, s, workers*8)
	if err != nil {
		return Result{}, err
	}
	if t.null != nil {
		if err := t.null.setBodySize(ctx, s.nullBody); err != nil {
			return Result{}, err
		}
	}
	if s.hns && e.c != nil {
		hns, err := hasHierarchicalNamespace(ctx, e.c)
		if err != nil {
			return Result{}, err
		}
		if !hns {
			return Result{Target: t.Name, Scenario: s.name, Skipped: "the account has no hierarchical namespace"}, nil
		}
	}
	do, cleanup, err := setup(ctx, e)
	if err != nil {
		return Result{}, fmt.Errorf("setup: %w", err)
	}
	if cleanup != nil {
		defer cleanup(context.WithoutCancel(ctx))
	}
	perWorker := 0
	if s.once {
		perWorker = 1
	} else if opts.Warmup > 0 {
		measure(ctx, do, workers, opts.Warmup, 0, 0)
	}
	// Sequence numbers continue past the warm-up's so that operations that
	// create named objects never collide with warm-up ones.
	cpu0 := cputime.Process()
	server0, serverKnown := t.Server.cpu()
	m := measure(ctx, do, workers, opts.Duration, measuredSeq, perWorker)
	cpu := cputime.Process() - cpu0
	server1, serverStill := t.Server.cpu()
	r := Result{Target: t.Name, Scenario: s.name, Ops: m.ops, Seconds: m.elapsed.Seconds(), Errors: m.errors,
		P50ms: ms(m.hist.quantile(0.5)), P99ms: ms(m.hist.quantile(0.99)), P999ms: ms(m.hist.quantile(0.999))}
	if rss, ok := t.Server.rss(); ok {
		r.ServerRSSMB = float64(rss) / 1e6
	}
	if r.Seconds > 0 {
		r.OpsPerSec = float64(m.ops) / r.Seconds
		r.MBPerSec = float64(m.bytes) / r.Seconds / 1e6
	}
	if m.ops > 0 {
		r.CPUusPerOp = float64(cpu) / float64(m.ops) / float64(time.Microsecond)
		if serverKnown && serverStill {
			r.ServerCPUusPerOp = float64(server1-server0) / float64(m.ops) / float64(time.Microsecond)
		}
	}
	return r, nil
}

// measuredSeq is the first sequence number of the measured window (the
// warm-up's start at 0), so that an operation knows the window has opened.
const measuredSeq = 1 << 30

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (s scenario) shortName() string {
	var b strings.Builder
	for _, r := range s.name {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

type measurement struct {
	ops, bytes int64
	elapsed    time.Duration
	hist       histogram
	errors     map[string]int64
}

// drainLimit is how long past the window an operation under way may take
// to finish before it is cut off (and not counted): a bound for a server
// that stops answering.
const drainLimit = time.Minute

// measure runs do from workers goroutines for d, numbering each worker's
// operations from firstSeq, and at most perWorker of them per worker
// unless that is 0. No operation starts after d, but one under way
// then is finished and counted rather than abandoned, and the measurement
// (elapsed time, and the server's CPU read around it) lasts until the last
// one ends. An abandoned request goes on costing the server CPU, which the
// window would then charge to the few operations it did count: with
// sixteen 5,000-blob listing pages of about 3 s each in a 3 s window, one
// page was counted and the server's CPU per page came out near twenty
// times its real cost.
func measure(ctx context.Context, do op, workers int, d time.Duration, firstSeq, perWorker int) *measurement {
	ctx, cancel := context.WithTimeout(ctx, d+drainLimit)
	defer cancel()
	deadline := time.Now().Add(d)
	total := &measurement{errors: map[string]int64{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			local := &measurement{errors: map[string]int64{}}
			for seq := firstSeq; ctx.Err() == nil && time.Now().Before(deadline) && (perWorker == 0 || seq < firstSeq+perWorker); seq++ {
				t0 := time.Now()
				n, err := do(ctx, w, seq)
				if ctx.Err() != nil {
					break // cut off by the drain limit: not a sample
				}
				if err != nil {
					local.errors[errorKey(err)]++
					continue
				}
				local.hist.record(time.Since(t0))
				local.ops++
				local.bytes += n
			}
			mu.Lock()
			total.ops += local.ops
			total.bytes += local.bytes
			total.hist.merge(&local.hist)
			for k, v := range local.errors {
				total.errors[k] += v
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	total.elapsed = time.Since(start)
	if len(total.errors) == 0 {
		total.errors = nil
	}
	return total
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
