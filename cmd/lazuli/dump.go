package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/lazuli-storage/lazuli/internal/tool/dump"
)

// runDump is `lazuli dump`: everything a store holds, as of one snapshot,
// to a file or stdout.
func runDump(args []string) int {
	fs := flag.NewFlagSet("lazuli dump", flag.ContinueOnError)
	url := fs.String("store", "", "store to read: sqlite:PATH or postgres://user@host:port/db (as lazuli --store)")
	out := fs.String("o", "-", "file to write the dump to; - for stdout")
	conns := fs.Int("pgConns", 0, "connection pool size for a postgres store (0: default)")
	extents := extentsFlag(fs)
	if code, ok := parseFlags(fs, args, "lazuli dump --store URL [--extents s3://...] [-o FILE]"); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := dump.Open(ctx, *url, dump.OpenOptions{PostgresConns: *conns, Extents: *extents})
	if err != nil {
		return fail("dump", err)
	}
	defer closeStorage(st)
	w, finish, err := output(*out)
	if err != nil {
		return fail("dump", err)
	}
	stats, err := dump.Dump(ctx, st.Store, st.Extents, w)
	if err = finish(err); err != nil {
		return fail("dump", err)
	}
	fmt.Fprintf(os.Stderr, "lazuli dump: %d records, %d extents (%d bytes) read from %s\n", stats.Records, stats.Extents, stats.ExtentBytes, redacted(*url))
	return 0
}

// runLoad is `lazuli load`: a dump into an empty store.
func runLoad(args []string) int {
	fs := flag.NewFlagSet("lazuli load", flag.ContinueOnError)
	url := fs.String("store", "", "store to fill: sqlite:PATH or postgres://user@host:port/db (as lazuli --store)")
	in := fs.String("i", "-", "dump file to read; - for stdin")
	force := fs.Bool("force", false, "load even though the store already holds data (records with the same keys are replaced)")
	conns := fs.Int("pgConns", 0, "connection pool size for a postgres store (0: default)")
	extents := extentsFlag(fs)
	if code, ok := parseFlags(fs, args, "lazuli load --store URL [--extents s3://...] [-i FILE] [--force]"); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := input(*in)
	if err != nil {
		return fail("load", err)
	}
	defer r.Close()
	st, err := dump.Open(ctx, *url, dump.OpenOptions{PostgresConns: *conns, Create: true, Extents: *extents})
	if err != nil {
		return fail("load", err)
	}
	defer closeStorage(st)
	stats, err := dump.Load(ctx, st.Store, st.Extents, r, dump.LoadOptions{Force: *force})
	if err != nil {
		return fail("load", err)
	}
	fmt.Fprintf(os.Stderr, "lazuli load: %d records, %d extents (%d bytes) written to %s\n", stats.Records, stats.Extents, stats.ExtentBytes, redacted(*url))
	return 0
}

// extentsFlag is dump's and load's --extents, which names where the
// content is as lazuli serve's does.
func extentsFlag(fs *flag.FlagSet) *string {
	return fs.String("extents", "", "where the store's content lives, as lazuli --extents takes it: s3://BUCKET/PREFIX?endpoint=HOST:PORT (default: beside the store)")
}

// parseFlags parses a subcommand's flags, which need --store and take no
// arguments; ok is false when the command must end with code.
func parseFlags(fs *flag.FlagSet, args []string, usage string) (code int, ok bool) {
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s\n", usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 || fs.Lookup("store").Value.String() == "" {
		fs.Usage()
		return 2, false
	}
	return 0, true
}

// redacted is a store URL fit to print: without its password, if any.
func redacted(store string) string {
	if u, err := neturl.Parse(store); err == nil && u.User != nil {
		return u.Redacted()
	}
	return store
}

func fail(cmd string, err error) int {
	fmt.Fprintf(os.Stderr, "lazuli %s: %v\n", cmd, err)
	return 1
}

func closeStorage(s *dump.Storage) {
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "lazuli: closing storage:", err)
	}
}

// output opens where a dump goes. finish takes the dump's error and
// returns the final one: a file is synced when the dump succeeded and
// removed when it failed, so no partial dump is left looking finished.
func output(name string) (io.Writer, func(error) error, error) {
	if name == "-" {
		if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return nil, nil, errors.New("not writing a binary dump to a terminal: give -o FILE or pipe the output")
		}
		return os.Stdout, func(err error) error { return err }, nil
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return f, func(err error) error {
		if err == nil {
			err = f.Sync()
		}
		err = errors.Join(err, f.Close())
		if err != nil {
			os.Remove(name)
		}
		return err
	}, nil
}

func input(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	return os.Open(name)
}
