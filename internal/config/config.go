// Package config turns command-line flags and environment variables into one
// Config. Flag names and meanings are Azurite's, so a script or compose file
// that ran Azurite runs Lazuli by swapping the command; Lazuli-only settings
// (the store URL, the File service) follow the same style.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/auth"
)

// Endpoint is where one service listens.
type Endpoint struct {
	Host string
	Port int // 0 picks a free port
}

// Addr is the listen address.
func (e Endpoint) Addr() string { return fmt.Sprintf("%s:%d", e.Host, e.Port) }

// Config is everything the server needs to start.
type Config struct {
	Blob, Queue, Table, File Endpoint
	// SMB is the File service's SMB endpoint; it runs with the File service
	// or alone (--services smb), over the same store.
	SMB Endpoint
	// Location is the data directory (Azurite's --location).
	Location string
	// InMemory keeps everything in memory (Azurite's --inMemoryPersistence).
	InMemory bool
	// Store is an explicit store URL (memory:, sqlite:PATH, postgres://...);
	// empty means derived from Location and InMemory.
	Store string
	// PostgresConns sizes the connection pools of the postgres engines
	// (0: pgx's default).
	PostgresConns int
	// Loose ignores request headers for features Lazuli does not implement
	// instead of rejecting them (Azurite's --loose).
	Loose bool
	// SkipAPIVersionCheck accepts any x-ms-version.
	SkipAPIVersionCheck bool
	// DisableProductStyleURL treats the first host label as never naming an account.
	DisableProductStyleURL bool
	Silent                 bool
	DebugLog               string // file for the debug log, "" for none
	Cert, Key, Pwd         string
	Accounts               *auth.Accounts
	// Services lists the services to start; empty means all.
	Services []string
}

// StoreURL is the store the server opens.
func (c *Config) StoreURL() string {
	switch {
	case c.Store != "":
		return c.Store
	case c.InMemory:
		return "memory:"
	default:
		return "sqlite:" + filepath.Join(c.Location, "lazuli.db")
	}
}

// ErrHelp is returned by Parse when --help was asked for; usage is printed.
var ErrHelp = flag.ErrHelp

// Parse reads args (without the program name) and the environment lookup.
func Parse(args []string, getenv func(string) string, usageOut io.Writer) (*Config, error) {
	c := &Config{}
	fs := flag.NewFlagSet("lazuli", flag.ContinueOnError)
	fs.SetOutput(usageOut)
	endpoint := func(e *Endpoint, name string, port int) {
		fs.StringVar(&e.Host, name+"Host", "127.0.0.1", "address the "+name+" service listens on")
		fs.IntVar(&e.Port, name+"Port", port, "port of the "+name+" service (0 picks a free port)")
	}
	endpoint(&c.Blob, "blob", 10000)
	endpoint(&c.Queue, "queue", 10001)
	endpoint(&c.Table, "table", 10002)
	endpoint(&c.File, "file", 10003)
	endpoint(&c.SMB, "smb", 10445)
	for _, n := range []string{"l", "location"} {
		fs.StringVar(&c.Location, n, "./lazuli-data", "data directory")
	}
	fs.BoolVar(&c.InMemory, "inMemoryPersistence", false, "keep all data in memory; nothing is written to disk")
	fs.StringVar(&c.Store, "store", "", "store URL: sqlite:PATH, memory:, or postgres://user@host:port/db (default sqlite under --location)")
	fs.IntVar(&c.PostgresConns, "pgConns", 0, "connection pool size for a postgres store (0: default)")
	for _, n := range []string{"L", "loose"} {
		fs.BoolVar(&c.Loose, n, false, "ignore headers of unsupported features instead of rejecting the request")
	}
	fs.BoolVar(&c.SkipAPIVersionCheck, "skipApiVersionCheck", false, "accept any x-ms-version")
	fs.BoolVar(&c.DisableProductStyleURL, "disableProductStyleUrl", false, "never take the account name from the host name")
	for _, n := range []string{"s", "silent"} {
		fs.BoolVar(&c.Silent, n, false, "no access log")
	}
	for _, n := range []string{"d", "debug"} {
		fs.StringVar(&c.DebugLog, n, "", "write a debug log to this file")
	}
	fs.StringVar(&c.Cert, "cert", "", "TLS certificate (PEM, or PFX with --pwd)")
	fs.StringVar(&c.Key, "key", "", "TLS private key (PEM)")
	fs.StringVar(&c.Pwd, "pwd", "", "password of a PFX certificate")
	var ignored bool
	fs.BoolVar(&ignored, "disableTelemetry", false, "accepted for Azurite compatibility; Lazuli sends no telemetry")
	var oauth string
	fs.StringVar(&oauth, "oauth", "", "accepted for Azurite compatibility; only \"basic\" is understood")
	var services string
	fs.StringVar(&services, "services", "", "comma-separated services to start (blob,queue,table,file,smb); default all")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if oauth != "" && oauth != "basic" {
		return nil, fmt.Errorf("--oauth %q: only basic is supported", oauth)
	}
	if (c.Cert == "") != (c.Key == "" && c.Pwd == "") {
		return nil, errors.New("--cert needs --key (PEM) or --pwd (PFX), and they need --cert")
	}
	if services != "" {
		for _, s := range strings.Split(services, ",") {
			switch s = strings.TrimSpace(s); s {
			case "blob", "queue", "table", "file", "smb":
				c.Services = append(c.Services, s)
			default:
				return nil, fmt.Errorf("--services: unknown service %q", s)
			}
		}
	}
	c.Accounts = auth.DevAccounts()
	if v := getenv("AZURITE_ACCOUNTS"); v != "" {
		accts, err := auth.ParseAccountsEnv(v)
		if err != nil {
			return nil, fmt.Errorf("AZURITE_ACCOUNTS: %w", err)
		}
		c.Accounts = accts
	}
	return c, nil
}

// Enabled reports whether the named service should start.
func (c *Config) Enabled(name string) bool {
	if len(c.Services) == 0 {
		return true
	}
	for _, s := range c.Services {
		if s == name {
			return true
		}
	}
	return false
}
