package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/internal/tool/bench"
)

const benchUsage = `usage: lazuli bench [flags] --target T [--target T2 --compare]

Targets:
  self               Lazuli in a child process (sqlite engine, fsync on, temporary directory;
                     --self-store and --self-nodes run several nodes over one PostgreSQL; its
                     account has a hierarchical namespace when a dfs-* scenario is asked for)
  null               a trivial Go HTTP server in a child process: what this machine's HTTP
                     stack allows
  (self and null run in this process instead with --in-process)
  azurite[:PORT]     Azurite's development account on PORT, PORT+1, PORT+2 (default 20000)
  lazuli[:PORT]      a running Lazuli with the development account on PORT..PORT+3 (default 10000)
  conn:STRING        any endpoint, from an Azure connection string
  urls               the --blob/--queue/--table/--file URLs with --account and --key
`

type targetList []string

func (t *targetList) String() string     { return strings.Join(*t, ",") }
func (t *targetList) Set(v string) error { *t = append(*t, v); return nil }

func runBench(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, benchUsage); fs.PrintDefaults() }
	var targets targetList
	fs.Var(&targets, "target", "target to measure (repeat for --compare)")
	duration := fs.Duration("d", 10*time.Second, "measured time per scenario")
	warmup := fs.Duration("warmup", 2*time.Second, "warm-up time per scenario")
	concurrency := fs.Int("c", 16, "concurrent operations")
	scenarios := fs.String("scenarios", strings.Join(bench.All(), ","), "comma-separated scenarios")
	compare := fs.Bool("compare", false, "alternate two targets (A B A B ...) and print the ratio of medians")
	rounds := fs.Int("rounds", 3, "rounds per target in --compare")
	jsonOut := fs.String("json", "", "write all results to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (the in-process server with --target self)")
	queueDepth := fs.Int("queue-depth", 2000, "messages kept queued by queue-get-delete")
	expiring := fs.Int("expiring-messages", 100000, "expired queue messages blob-put-1k-expiring measures Put Blob beside (0 for the baseline: the same consumer, no backlog)")
	listBlobs := fs.Int("list-blobs", 100000, "blobs listed by list-blobs and list-blobs-delimited, and files in the tree of the dfs-* scenarios")
	tableRows := fs.Int("table-rows", 20000, "entities queried by table-query and table-query-partition")
	taggedBlobs := fs.Int("tagged-blobs", 10000, "tagged blobs searched by find-blobs-tags")
	diskDir := fs.String("disk", os.TempDir(), "directory whose sequential write rate is measured and printed")
	urls := bench.Target{Name: "urls"}
	fs.StringVar(&urls.BlobURL, "blob", "", "blob endpoint URL (target urls)")
	fs.StringVar(&urls.QueueURL, "queue", "", "queue endpoint URL (target urls)")
	fs.StringVar(&urls.TableURL, "table", "", "table endpoint URL (target urls)")
	fs.StringVar(&urls.FileURL, "file", "", "file endpoint URL (target urls)")
	fs.StringVar(&urls.Account, "account", "devstoreaccount1", "account name (target urls)")
	fs.StringVar(&urls.Key, "key", devKey, "account key (target urls)")
	var self selfOptions
	fs.StringVar(&self.store, "self-store", "", "store URL of --target self (default: sqlite in a temporary directory), e.g. postgres://user@host/db")
	fs.IntVar(&self.nodes, "self-nodes", 1, "nodes --target self runs over its one store; requests alternate between them")
	fs.BoolVar(&self.inProcess, "in-process", false, "run the self and null targets in this process (the load generator's CPU then dilutes the server's; useful with --cpuprofile to profile the server)")
	var fresh freshList
	fs.Var(&fresh, "fresh", "NAME=SCRIPT: restart target NAME before each scenario with \"SCRIPT stop\" and \"SCRIPT start\" (its last output line is the server's PID), e.g. azurite=scripts/azurite.sh")
	sdk := fs.Bool("sdk", false, "drive the scenarios through the official Azure SDK for Go clients instead of the lean client (the SDK's cost is measured too)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(targets) == 0 || (*compare && len(targets) != 2) || (!*compare && len(targets) != 1) {
		fs.Usage()
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lazuli bench:", err)
			return 1
		}
		defer f.Close()
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	names := strings.Split(*scenarios, ",")
	self.hns = bench.NeedHierarchicalNamespace(names)
	resolved := make([]bench.Target, len(targets))
	for i, spec := range targets {
		t, closeTarget, err := resolveTarget(ctx, spec, urls, self)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lazuli bench:", err)
			return 1
		}
		defer closeTarget()
		if script, ok := fresh[t.Name]; ok {
			t = bench.Fresh(t, script)
			defer t.Server.Close()
		}
		resolved[i] = t
	}
	disk, err := bench.MeasureDisk(*diskDir)
	if err == nil {
		fmt.Printf("disk sequential write (fsync'd) in %s: %.0f MB/s\n", disk.Dir, disk.MBPerSec)
	}
	opts := bench.Options{Duration: *duration, Warmup: *warmup, Concurrency: *concurrency, QueueDepth: *queueDepth,
		ExpiringMessages: *expiring, ListBlobs: *listBlobs, TableRows: *tableRows, TaggedBlobs: *taggedBlobs, SDK: *sdk}
	var results []bench.Result
	var comparisons []bench.Comparison
	if *compare {
		comparisons, results, err = bench.Compare(ctx, resolved[0], resolved[1], names, opts, *rounds, os.Stdout)
		fmt.Println()
		bench.PrintComparisons(os.Stdout, comparisons)
	} else {
		for _, name := range names {
			var r []bench.Result
			r, err = bench.Run(ctx, resolved[0], []string{name}, opts)
			bench.Print(os.Stdout, r)
			results = append(results, r...)
			if err != nil {
				break
			}
		}
	}
	if *jsonOut != "" {
		if werr := bench.WriteJSON(*jsonOut, results, comparisons, disk); werr != nil {
			fmt.Fprintln(os.Stderr, "lazuli bench:", werr)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lazuli bench:", err)
		return 1
	}
	return 0
}

const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

func resolveTarget(ctx context.Context, spec string, urls bench.Target, self selfOptions) (bench.Target, func(), error) {
	name, arg, _ := strings.Cut(spec, ":")
	nothing := func() {}
	switch name {
	case "self":
		return startSelf(ctx, self)
	case "null":
		if self.inProcess {
			return bench.NullTarget()
		}
		exe, err := os.Executable()
		if err != nil {
			return bench.Target{}, nil, err
		}
		return bench.StartChild(ctx, []string{exe, nullCommand}, bench.NullChildReady)
	case "azurite", "lazuli":
		port := map[string]int{"azurite": 20000, "lazuli": 10000}[name]
		if arg != "" {
			if _, err := fmt.Sscan(arg, &port); err != nil {
				return bench.Target{}, nil, fmt.Errorf("target %s: bad port", spec)
			}
		}
		t := bench.Target{Name: name, Account: "devstoreaccount1", Key: devKey}
		t.BlobURL = fmt.Sprintf("http://127.0.0.1:%d/devstoreaccount1", port)
		t.QueueURL = fmt.Sprintf("http://127.0.0.1:%d/devstoreaccount1", port+1)
		t.TableURL = fmt.Sprintf("http://127.0.0.1:%d/devstoreaccount1", port+2)
		if name == "lazuli" {
			t.FileURL = fmt.Sprintf("http://127.0.0.1:%d/devstoreaccount1", port+3)
		}
		return t, nothing, nil
	case "conn":
		t, err := bench.ParseConnectionString("conn", arg)
		return t, nothing, err
	case "urls":
		return urls, nothing, nil
	}
	return bench.Target{}, nil, fmt.Errorf("unknown target %q", spec)
}

// freshList maps a target name to the script that restarts it (--fresh).
type freshList map[string]string

func (f *freshList) String() string { return fmt.Sprint(map[string]string(*f)) }
func (f *freshList) Set(v string) error {
	name, script, ok := strings.Cut(v, "=")
	if !ok || name == "" || script == "" {
		return errors.New("want NAME=SCRIPT")
	}
	if *f == nil {
		*f = freshList{}
	}
	(*f)[name] = script
	return nil
}

// nullCommand is the hidden subcommand that serves the null target in a
// process of its own.
const nullCommand = "bench-null"

// serveNull runs the null server until SIGINT or SIGTERM.
func serveNull() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.ServeNull(ctx, "127.0.0.1:0", os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lazuli bench-null:", err)
		return 1
	}
	return 0
}

// selfOptions say how --target self runs.
type selfOptions struct {
	store     string // store URL; "" means sqlite in a temporary directory
	nodes     int    // nodes over that one store
	inProcess bool   // serve in this process instead of child processes
	hns       bool   // serve the account with a hierarchical namespace (the dfs scenarios)
}

// startSelf runs Lazuli on free ports, in child processes so that the load
// generator's CPU is not the server's: by default one node on the durable
// sqlite engine in a temporary directory, or several nodes over one shared
// store (postgres) to measure a scale-out setup.
func startSelf(ctx context.Context, opts selfOptions) (bench.Target, func(), error) {
	if opts.nodes > 1 && !strings.HasPrefix(opts.store, "postgres") {
		return bench.Target{}, nil, fmt.Errorf("--self-nodes %d needs a store the nodes can share (--self-store postgres://HOST/DB)", opts.nodes)
	}
	dir, err := os.MkdirTemp("", "lazuli-bench-")
	if err != nil {
		return bench.Target{}, nil, err
	}
	var stops []func()
	closeSelf := func() {
		for _, stop := range stops {
			stop()
		}
		os.RemoveAll(dir)
	}
	var target bench.Target
	for n := 0; n < max(opts.nodes, 1); n++ {
		args := []string{"--blobPort", "0", "--queuePort", "0", "--tablePort", "0", "--filePort", "0", "--smbPort", "0",
			"--location", dir, "--silent", "--noAdmin"}
		if opts.store != "" {
			args = append(args, "--store", opts.store)
		}
		if opts.hns {
			args = append(args, "--hnsAccounts", "devstoreaccount1")
		}
		name := fmt.Sprintf("lazuli-node%d", n+1)
		t, stop, err := startNode(ctx, name, args, opts.inProcess)
		if err != nil {
			closeSelf()
			return bench.Target{}, nil, err
		}
		stops = append(stops, stop)
		if n == 0 {
			target = t
			target.Name = "lazuli"
		} else {
			target.Nodes = append(target.Nodes, t)
		}
	}
	return target, closeSelf, nil
}

// startNode starts one Lazuli node with args, as a child process running
// this executable, or in this process.
func startNode(ctx context.Context, name string, args []string, inProcess bool) (bench.Target, func(), error) {
	if !inProcess {
		exe, err := os.Executable()
		if err != nil {
			return bench.Target{}, nil, err
		}
		return bench.StartChild(ctx, append([]string{exe, "serve"}, args...), func(line string) (bench.Target, bool) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "DefaultEndpointsProtocol=") {
				return bench.Target{}, false
			}
			t, err := bench.ParseConnectionString(name, line)
			return t, err == nil
		})
	}
	cfg, err := config.Parse(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		return bench.Target{}, nil, err
	}
	a, err := app.Start(ctx, cfg, app.Options{})
	if err != nil {
		return bench.Target{}, nil, err
	}
	stop := func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = a.Close(shutdownCtx)
	}
	t, err := bench.ParseConnectionString(name, a.ConnectionString())
	if err != nil {
		stop()
		return bench.Target{}, nil, err
	}
	return t, stop, nil
}
