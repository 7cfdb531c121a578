package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/storage"
	"github.com/lazuli-storage/lazuli/internal/engine/store/engine"
	"github.com/lazuli-storage/lazuli/internal/tool/azurite"
)

const importUsage = "lazuli import azurite DIR --store URL"

// runImport is `lazuli import azurite DIR --store URL`: an Azurite
// workspace (its --location folder) into an empty store of any engine.
func runImport(args []string) int {
	if len(args) == 0 || args[0] != "azurite" {
		fmt.Fprintf(os.Stderr, "usage: %s\n(azurite is the only source)\n", importUsage)
		return 2
	}
	fs := flag.NewFlagSet("lazuli import azurite", flag.ContinueOnError)
	url := fs.String("store", "", "store to fill: sqlite:PATH or postgres://user@host:port/db (as lazuli --store)")
	extents := fs.String("extents", "", "where content lives, as lazuli --extents takes it (default: beside the store)")
	conns := fs.Int("pgConns", 0, "connection pool size for a postgres store (0: default)")
	dir, code, ok := parseImportArgs(fs, args[1:])
	if !ok {
		return code
	}
	if kind, _, err := engine.Parse(*url); err == nil && kind == engine.Memory {
		return fail("import", errors.New("a memory: store would end with this command: give a sqlite: or postgres:// store"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := storage.Open(ctx, *url, storage.Options{PostgresConns: *conns, Inline: true, Extents: *extents})
	if err != nil {
		return fail("import", err)
	}
	defer closeStorage(st)
	counts, err := azurite.Import(ctx, dir, st.Store, st.Extents, time.Now())
	if err != nil {
		return fail("import", err)
	}
	fmt.Fprintf(os.Stderr, "lazuli import: %s written to %s\n", counts, redacted(*url))
	return 0
}

// parseImportArgs reads the flags and the one folder argument, in any
// order; ok is false when the command must end with code.
func parseImportArgs(fs *flag.FlagSet, args []string) (dir string, code int, ok bool) {
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s\n", importUsage)
		fs.PrintDefaults()
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", 0, false
			}
			return "", 2, false
		}
		if fs.NArg() == 0 {
			break
		}
		positional, args = append(positional, fs.Arg(0)), fs.Args()[1:]
	}
	if len(positional) != 1 || fs.Lookup("store").Value.String() == "" {
		fs.Usage()
		return "", 2, false
	}
	return positional[0], 0, true
}
