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
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/liveness"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// Endpoint is where one service listens.
type Endpoint struct {
	Host string
	Port int // 0 picks a free port
}

// Addr is the listen address.
func (e Endpoint) Addr() string { return fmt.Sprintf("%s:%d", e.Host, e.Port) }

// Defaults of the SMB endpoint's connection limits (smb.Limits): a client
// has 30 seconds from connecting to log on, and a logged-on connection
// holding no open file is dropped after 15 minutes without a request, as
// Windows' server autodisconnect does by default.
const (
	DefaultSMBAuthTimeout = 30 * time.Second
	DefaultSMBIdleTimeout = 15 * time.Minute
)

// Config is everything the server needs to start.
type Config struct {
	Blob, Queue, Table, File Endpoint
	// SMB is the File service's SMB endpoint; it runs with the File service
	// or alone (--services smb), over the same store.
	SMB Endpoint
	// SMBRequireSigning and SMBRequireEncryption are the SMB endpoint's
	// smb.Policy: every session must sign, or encrypt, every request.
	SMBRequireSigning, SMBRequireEncryption bool
	// SMBOpenExpiry is how long the SMB opens of a node that stops (a
	// crash, a lost database connection) keep blocking other nodes: each
	// node renews its liveness every third of it (package liveness).
	SMBOpenExpiry time.Duration
	// SMBAuthTimeout closes an SMB connection not logged on this long
	// after it was accepted; SMBIdleTimeout closes a logged-on one that
	// holds no open file and is idle this long (smb.Limits; 0: never).
	SMBAuthTimeout, SMBIdleTimeout time.Duration
	// Location is the data directory (Azurite's --location).
	Location string
	// InMemory keeps everything in memory (Azurite's --inMemoryPersistence).
	InMemory bool
	// Store is an explicit store URL (memory:, sqlite:PATH, postgres://...);
	// empty means derived from Location and InMemory.
	Store string
	// Extents is where blob and file content lives when not beside the
	// store: an s3:// URL (--extents; package storage); empty keeps it
	// with the store.
	Extents string
	// BodyTimeout, WriteTimeout and MaxConns protect a shared server from
	// clients that stall (server/limits.go).
	BodyTimeout, WriteTimeout time.Duration
	MaxConns                  int
	// MinBodyRate (bytes a second, 0 for none) is the average rate a
	// request body must keep once BodyRateGrace has passed.
	MinBodyRate   int64
	BodyRateGrace time.Duration
	// BlobVersioning turns blob versioning on for every account whose
	// service properties do not say (--blobVersioning).
	BlobVersioning bool
	// CrossAccountCopyRate, in MiB/s, keeps a Copy Blob whose source is
	// another account pending as long as copying it at that rate takes
	// (--crossAccountCopyRate); 0 completes it at once.
	CrossAccountCopyRate float64
	// CopySourceAllow lists the hosts copy sources may be fetched from
	// (--copySourceAllow); empty means the default policy (fetchguard).
	CopySourceAllow []string
	// EncryptionScopes are the Blob encryption scopes every account has
	// (--encryptionScopes); Azure creates them in the management plane.
	EncryptionScopes []string
	// PremiumAccounts are the accounts served as premium page blob
	// accounts (--premiumAccounts): page blobs have tiers P4 to P80.
	PremiumAccounts []string
	// DFSPort is --dfsPort: a second listener, on --blobHost, serving the
	// Blob endpoint's handler (Blob and the Data Lake dfs API) for clients
	// given a dfs endpoint of its own; -1 (the default) runs none.
	DFSPort int
	// HNSAccounts are the accounts served with a hierarchical namespace
	// (--hnsAccounts): Set Blob Expiry is theirs only, as on Azure.
	HNSAccounts []string
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
	// OAuth accepts Bearer tokens when set (--oauth basic, --oauthKeys).
	OAuth *auth.OAuth
	// Services lists the services to start; empty means all.
	Services []string
	// Admin is the admin listener (test control, metrics, console);
	// NoAdmin turns it off. AdminToken admits non-loopback callers.
	Admin      Endpoint
	NoAdmin    bool
	AdminToken string
	// AdminHosts are further names the admin listener answers to
	// (--adminHosts): requests naming any other host are refused.
	AdminHosts []string
	// LogFormat is "text" (the default) or "json" for the access and
	// error logs.
	LogFormat string
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
	fs.DurationVar(&c.SMBAuthTimeout, "smbAuthTimeout", DefaultSMBAuthTimeout, "close an SMB connection that has not logged on this long after it was accepted (0: never)")
	fs.DurationVar(&c.SMBIdleTimeout, "smbIdleTimeout", DefaultSMBIdleTimeout, "close a logged-on SMB connection that holds no open file and is idle this long, as Windows' autodisconnect (0: never)")
	fs.DurationVar(&c.SMBOpenExpiry, "smbOpenExpiry", liveness.DefaultExpiry, "how long the SMB opens of a node that stopped keep blocking the others; each node renews its liveness every third of it")
	fs.BoolVar(&c.SMBRequireSigning, "smbRequireSigning", false, "SMB sessions must sign every request; unsigned ones are refused with STATUS_ACCESS_DENIED")
	fs.BoolVar(&c.SMBRequireEncryption, "smbRequireEncryption", false, "SMB sessions must encrypt every request (SMB 3.1.1 with AES-128-GCM); clients that cannot are refused at logon")
	fs.StringVar(&c.Admin.Host, "adminHost", "127.0.0.1", "address of the admin listener (test control, metrics, web console)")
	fs.IntVar(&c.Admin.Port, "adminPort", 10009, "port of the admin listener (0 picks a free port)")
	fs.BoolVar(&c.NoAdmin, "noAdmin", false, "do not start the admin listener")
	fs.StringVar(&c.LogFormat, "logFormat", "text", "format of the access and error logs: text or json (one object a line)")
	fs.StringVar(&c.AdminToken, "adminToken", "", "bearer token that admits non-loopback callers to the admin listener (or LAZULI_ADMIN_TOKEN)")
	fs.Func("adminHosts", "comma-separated further host names (or addresses) the admin listener answers to, on any port, such as a Docker host's name; "+
		"a request naming another host is refused (421) unless it carries --adminToken, so that a DNS-rebound web page cannot reach it. "+
		"Its own address, localhost and this machine's addresses need no listing", appendList(&c.AdminHosts))
	for _, n := range []string{"l", "location"} {
		fs.StringVar(&c.Location, n, "./lazuli-data", "data directory")
	}
	fs.BoolVar(&c.InMemory, "inMemoryPersistence", false, "keep all data in memory; nothing is written to disk")
	fs.BoolVar(&c.BlobVersioning, "blobVersioning", false, "turn blob versioning on for every account whose service properties do not set IsVersioningEnabled")
	fs.Float64Var(&c.CrossAccountCopyRate, "crossAccountCopyRate", 0, "MiB/s: Copy Blob from another account or server stays pending (x-ms-copy-status, Abort Copy Blob) as long as copying it at this rate would take; 0 completes it at once, as Azurite does")
	fs.StringVar(&c.Store, "store", "", "store URL: sqlite:PATH, memory:, or postgres://user@host:port/db (default sqlite under --location)")
	fs.StringVar(&c.Extents, "extents", "", "where content lives: s3://BUCKET/PREFIX?endpoint=HOST:PORT&region=R&secure=false, signed with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (default: beside the store)")
	fs.IntVar(&c.PostgresConns, "pgConns", 0, "connection pool size for a postgres store (0: default)")
	fs.DurationVar(&c.BodyTimeout, "bodyTimeout", server.DefaultBodyTimeout, "close a connection whose request body makes no progress for this long (0: never)")
	fs.Int64Var(&c.MinBodyRate, "minBodyRate", server.DefaultMinBodyRate, "bytes a second a request body must average once --minBodyRateGrace has passed; a slower one is answered 500 OperationTimedOut and its connection closed, so that no client holds a connection by sending a byte now and then (0: no minimum)")
	fs.DurationVar(&c.BodyRateGrace, "minBodyRateGrace", server.DefaultBodyRateGrace, "time a request body has before --minBodyRate applies; the bytes it sends meanwhile count towards the average")
	fs.DurationVar(&c.WriteTimeout, "writeTimeout", server.DefaultWriteTimeout, "abandon a response the client stops reading for this long (0: never)")
	fs.Func("copySourceAllow", "comma-separated hosts copy sources may be fetched from (names, *.suffix, IPs, CIDRs; * for all); default: all while every listener is on loopback, else public addresses only", func(v string) error {
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				c.CopySourceAllow = append(c.CopySourceAllow, h)
			}
		}
		return nil
	})
	fs.Func("encryptionScopes", "comma-separated Blob encryption scopes every account has (x-ms-encryption-scope, container default scopes)", appendList(&c.EncryptionScopes))
	fs.Func("premiumAccounts", "comma-separated accounts served as premium page blob accounts (tiers P4 to P80)", appendList(&c.PremiumAccounts))
	fs.IntVar(&c.DFSPort, "dfsPort", -1, "port of a listener serving the Blob endpoint (Blob and Data Lake dfs requests, which the Blob port serves too) for clients given a separate dfs endpoint (-1: none, 0 picks a free port)")
	fs.Func("hnsAccounts", "comma-separated accounts served with a hierarchical namespace (Set Blob Expiry and x-ms-expiry-option need one)", appendList(&c.HNSAccounts))
	fs.IntVar(&c.MaxConns, "maxConns", server.DefaultMaxConns, "connections each listener (SMB's too) serves at once; more wait to be accepted (0: no limit)")
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
	var oauth, oauthKeys string
	fs.StringVar(&oauth, "oauth", "", "accept OAuth Bearer tokens as Azurite does (\"basic\": issuer, audience and lifetime checked); needs --cert")
	fs.StringVar(&oauthKeys, "oauthKeys", "", "JWKS or PEM file of public keys: Bearer token signatures must verify against one of them (implies --oauth basic)")
	dataOwners := fs.String("dataOwners", "*", "comma-separated object ids of the principals holding a data owner role on every account, or * for all; any other OAuth principal has only what the POSIX ACLs of a --hnsAccounts account grant it")
	var services string
	fs.StringVar(&services, "services", "", "comma-separated services to start (blob,queue,table,file,smb); default all")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := c.parseOAuth(oauth, oauthKeys); err != nil {
		return nil, err
	}
	if err := c.parseDataOwners(*dataOwners); err != nil {
		return nil, err
	}
	if (c.Cert == "") != (c.Key == "" && c.Pwd == "") {
		return nil, errors.New("--cert needs --key (PEM) or --pwd (PFX), and they need --cert")
	}
	if c.AdminToken == "" {
		c.AdminToken = getenv("LAZULI_ADMIN_TOKEN")
	}
	if c.MinBodyRate < 0 || c.BodyRateGrace < 0 {
		return nil, errors.New("--minBodyRate and --minBodyRateGrace cannot be negative")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return nil, fmt.Errorf("--logFormat %q: want text or json", c.LogFormat)
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

// parseOAuth sets c.OAuth from --oauth and --oauthKeys. Azure accepts
// Bearer tokens over HTTPS only, so both need --cert, as Azurite's --oauth
// does.
func (c *Config) parseOAuth(level, keysFile string) error {
	if level == "" && keysFile == "" {
		return nil
	}
	if level != "" && level != "basic" {
		return fmt.Errorf("--oauth %q: only basic is supported", level)
	}
	if c.Cert == "" {
		return errors.New("--oauth and --oauthKeys need HTTPS: give --cert (and --key or --pwd)")
	}
	c.OAuth = &auth.OAuth{}
	if keysFile != "" {
		keys, err := auth.LoadKeySet(keysFile)
		if err != nil {
			return fmt.Errorf("--oauthKeys %s: %w", keysFile, err)
		}
		c.OAuth.Keys = keys
	}
	return nil
}

// parseDataOwners sets the OAuth principals with a data owner role from
// --dataOwners, which only Bearer tokens and user delegation SAS (whose
// keys need a token) can name.
func (c *Config) parseDataOwners(v string) error {
	owners, err := auth.ParseDataOwners(v)
	if err != nil {
		return fmt.Errorf("--dataOwners %q: %w", v, err)
	}
	if c.OAuth == nil {
		if strings.TrimSpace(v) != "*" {
			return errors.New("--dataOwners names OAuth principals: give --oauth basic")
		}
		return nil
	}
	c.OAuth.DataOwners = owners
	return nil
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

// appendList is a flag of comma-separated names, added to *dst.
func appendList(dst *[]string) func(string) error {
	return func(v string) error {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				*dst = append(*dst, name)
			}
		}
		return nil
	}
}
