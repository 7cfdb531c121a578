// Command lazuli is an Azure Storage-compatible server: the Blob, Queue,
// Table and File services on the Azurite ports, with the same flags.
//
//	lazuli [serve] [flags]   serve (the default)
//	lazuli bench [flags]     measure an endpoint (see lazuli bench --help)
//	lazuli dump --store URL  write everything a store holds to a file (-o) or stdout
//	lazuli load --store URL  fill an empty store from a dump file (-i) or stdin
//	lazuli import azurite DIR --store URL  fill an empty store from an Azurite workspace
//	lazuli version           print the version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/internal/tool/azurite"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(azuriteCommand(os.Args[0], os.Args[1:])))
}

// azuriteCommand gives the container image's azurite-blob, azurite-queue
// and azurite-table names (links to this binary, as in Azurite's image)
// their meaning: one service only.
func azuriteCommand(argv0 string, args []string) []string {
	switch name := filepath.Base(argv0); name {
	case "azurite-blob", "azurite-queue", "azurite-table":
		return append([]string{"--services", strings.TrimPrefix(name, "azurite-")}, args...)
	}
	return args
}

func run(args []string) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args)
	case "bench":
		return runBench(args)
	case nullCommand:
		return serveNull()
	case "dump":
		return runDump(args)
	case "load":
		return runLoad(args)
	case "import":
		return runImport(args)
	case "version":
		fmt.Println("lazuli", version)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "lazuli: unknown command %q (commands: serve, bench, dump, load, import, version)\n", cmd)
		return 2
	}
}

func serve(args []string) int {
	reserveHeap()
	cfg, err := config.Parse(args, os.Getenv, os.Stderr)
	if errors.Is(err, config.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lazuli:", err)
		return 2
	}
	opts, closeLogs, err := logging(cfg, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lazuli:", err)
		return 2
	}
	if dir := cfg.AdoptAzurite(); dir != "" {
		opts.Prepare = azurite.AtStart(dir, os.Stdout)
	}
	defer closeLogs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := app.Start(ctx, cfg, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lazuli:", err)
		return 1
	}
	printReady(os.Stdout, a)
	select {
	case <-ctx.Done():
	case err := <-a.Server.Errors():
		fmt.Fprintln(os.Stderr, "lazuli:", err)
	}
	fmt.Fprintln(os.Stdout, "Lazuli is shutting down: finishing in-flight requests.")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Close(shutdownCtx); err != nil {
		fmt.Fprintln(os.Stderr, "lazuli: shutdown:", err)
		return 1
	}
	return 0
}

// logging builds the loggers (--logFormat text or json): errors to stderr,
// the access log to stdout unless --silent, and everything at debug level to the --debug file.
func logging(cfg *config.Config, stdout, stderr io.Writer) (app.Options, func(), error) {
	handler := func(w io.Writer, o *slog.HandlerOptions) slog.Handler {
		if cfg.LogFormat == "json" {
			return slog.NewJSONHandler(w, o)
		}
		return slog.NewTextHandler(w, o)
	}
	opts := app.Options{Logger: slog.New(handler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if !cfg.Silent {
		opts.AccessLog = slog.New(handler(stdout, nil))
	}
	closeLogs := func() {}
	if cfg.DebugLog != "" {
		f, err := os.OpenFile(cfg.DebugLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return opts, nil, fmt.Errorf("--debug: %w", err)
		}
		debug := slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
		opts.Logger, opts.Debug = debug, true
		if opts.AccessLog == nil {
			opts.AccessLog = debug
		} else {
			opts.AccessLog = slog.New(fanout{opts.AccessLog.Handler(), debug.Handler()})
		}
		slog.SetDefault(debug)
		closeLogs = func() { f.Close() }
	}
	return opts, closeLogs, nil
}

func printReady(w io.Writer, a *app.App) {
	fmt.Fprintf(w, "Lazuli %s is ready. Data: %s\n", version, a.Config.StoreURL())
	// "<Service> service is successfully listening" is the line Azurite
	// prints and that tools (Testcontainers' Azurite modules) wait for.
	for _, name := range []string{"Blob", "Queue", "Table", "File"} {
		if u, ok := a.Endpoints[strings.ToLower(name)]; ok {
			fmt.Fprintf(w, "  %s service is successfully listening at %s\n", name, u)
		}
	}
	if u, ok := a.Endpoints["dfs"]; ok {
		fmt.Fprintf(w, "  Data Lake (dfs) requests, beside the Blob port, also at %s\n", u)
	}
	if a.SMBAddr != "" {
		fmt.Fprintf(w, "  SMB endpoint of the File service at //%s/<share> (user %s, password: the account key)\n", a.SMBAddr, a.Config.Accounts.Names()[0])
	}
	if u := a.AdminURL(); u != "" {
		fmt.Fprintf(w, "  Admin listener (console, metrics, test control) at %s\n", u)
	}
	fmt.Fprintf(w, "Connection string:\n  %s\n", a.ConnectionString())
}
