// Package app assembles a running Lazuli from a Config: it opens the store
// and the extent engine, builds the services, binds their listeners, starts
// the extent collector, and shuts everything down in order. cmd/lazuli and
// the in-process test server (lazulitest) both start Lazuli through here.
package app

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/analytics"
	"github.com/lazuli-storage/lazuli/internal/frame/changefeed"
	"github.com/lazuli-storage/lazuli/internal/frame/fault"
	"github.com/lazuli-storage/lazuli/internal/frame/liveness"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"
	"github.com/lazuli-storage/lazuli/internal/rule/locks"
	"github.com/lazuli-storage/lazuli/internal/run/admin"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/internal/run/metrics"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/dfs"
	"github.com/lazuli-storage/lazuli/internal/service/smb"
)

// Options are the parts of a start that are not configuration.
type Options struct {
	Clock     clock.Clock  // nil: the system clock, adjustable through the admin API
	Logger    *slog.Logger // errors and debug output; nil: slog.Default()
	AccessLog *slog.Logger // one line per request; nil: none
	Debug     bool         // log auth string-to-sign on failures
	// Prepare runs on the opened storage before any listener starts (the
	// import of an Azurite workspace); its error stops the start.
	Prepare func(context.Context, store.Store, extent.Engine) error
}

// App is a running Lazuli.
type App struct {
	Config    *config.Config
	Store     store.Store
	Extents   extent.Engine
	Server    *server.Server
	Endpoints map[string]string // service name -> base URL including the account path
	SMB       *smb.Server       // nil when the File service is not running
	SMBAddr   string            // host:port the SMB endpoint listens on
	// byteLocks are SMB byte-range locks, shared by SMB and REST.
	byteLocks *locks.Table
	// Liveness is this node's liveness record, which keeps its SMB opens
	// valid for the other nodes, and the judge of theirs.
	Liveness *liveness.Registry
	// changes wakes SMB CHANGE_NOTIFY requests after REST and SMB writes.
	changes *changefeed.Feed
	// Clock is the server's clock, Faults the fault rules the services
	// consult, Metrics what /metrics shows; Admin is the admin listener
	// (nil with --noAdmin).
	Clock   clock.Clock
	Faults  *fault.Set
	Metrics *metrics.Metrics
	Admin   *admin.Server
	// handlers are the services' handlers by name, for the console.
	handlers map[string]http.Handler
	stop     context.CancelFunc
	done     chan struct{}
	// background is the services' own work (server.Background), run until
	// Close.
	background []server.Background
	// Analytics buffers the Storage Analytics logs of the Blob, Queue and
	// Table services and writes them into the accounts' $logs containers
	// through the Blob service (analytics.go).
	Analytics *analytics.Logger
	// logs is where the Analytics logs go: the Blob service, once built.
	logs *logSink
	// copySources is the copy-source policy the services fetch under.
	copySources *fetchguard.Guard
}

// Start opens storage, binds every enabled service and serves them.
func Start(ctx context.Context, cfg *config.Config, opts Options) (*App, error) {
	if opts.Clock == nil {
		opts.Clock = clock.NewControlled()
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	st, ext, err := openStorage(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if opts.Prepare != nil {
		if err := opts.Prepare(ctx, st, ext); err != nil {
			return nil, errors.Join(err, ext.Close(), st.Close())
		}
	}
	a := &App{Config: cfg, Extents: ext, Endpoints: map[string]string{}, done: make(chan struct{}),
		Clock: opts.Clock, Faults: &fault.Set{}, handlers: map[string]http.Handler{}, logs: &logSink{}}
	a.Metrics = newMetrics(a)
	a.Store = a.Metrics.Store(st)
	if err := a.listenAdmin(cfg, opts); err != nil {
		a.closeStorage()
		return nil, err
	}
	if err := a.listen(cfg, opts); err != nil {
		_ = a.shutdownAdmin(ctx)
		a.closeStorage()
		return nil, err
	}
	if err := a.startSMB(cfg, opts); err != nil {
		_ = errors.Join(a.shutdownAdmin(ctx), a.Server.Shutdown(ctx))
		a.closeStorage()
		return nil, fmt.Errorf("smb endpoint: %w", err)
	}
	if err := a.guardCopySources(); err != nil {
		_ = errors.Join(a.shutdownAdmin(ctx), a.Server.Shutdown(ctx), a.closeSMB())
		a.closeStorage()
		return nil, err
	}
	a.Server.Serve()
	a.serveAdmin()
	collectCtx, cancel := context.WithCancel(context.Background())
	a.stop = cancel
	collector := &extent.Collector{Engine: ext, Store: a.Store, Clock: opts.Clock, Grace: 5 * time.Minute,
		OrphanAge: time.Hour, Logger: opts.Logger}
	var background sync.WaitGroup
	for _, b := range a.background {
		background.Go(func() { b.Run(collectCtx) })
	}
	go func() {
		defer close(a.done)
		collector.Run(collectCtx, time.Minute)
		background.Wait()
	}()
	return a, nil
}

func (a *App) listen(cfg *config.Config, opts Options) error {
	a.byteLocks = locks.New()
	a.Liveness = liveness.New(a.Store, opts.Clock, cfg.SMBOpenExpiry, opts.Logger)
	a.changes = &changefeed.Feed{}
	a.copySources = fetchguard.New(cfg.CopySourceAllow, allLoopback(cfg))
	deps := server.Deps{Store: a.Store, Extents: a.Extents, Clock: opts.Clock, Accounts: cfg.Accounts,
		Logger: opts.Logger, Loose: cfg.Loose, OAuth: cfg.OAuth, ByteLocks: a.byteLocks, Liveness: a.Liveness,
		Changes: a.changes, CopySources: a.copySources, BlobVersioning: cfg.BlobVersioning, CrossAccountCopyRate: cfg.CrossAccountCopyRate,
		EncryptionScopes: cfg.EncryptionScopes, PremiumAccounts: cfg.PremiumAccounts,
		HNSAccounts: cfg.HNSAccounts}
	authn := &auth.Authenticator{Accounts: cfg.Accounts, Clock: opts.Clock, RequestClock: clock.Real{},
		Logger: opts.Logger, Debug: opts.Debug, OAuth: cfg.OAuth}
	tlsConfig, err := loadTLS(cfg)
	if err != nil {
		return err
	}
	mw := server.Options{Store: a.Store, RequireTLS: tlsConfig != nil, Auth: authn, Clock: opts.Clock, SkipAPIVersionCheck: cfg.SkipAPIVersionCheck,
		DisableProductStyleURL: cfg.DisableProductStyleURL, AccessLog: opts.AccessLog, Faults: a.Faults,
		Observer: a.Metrics, BodyTimeout: cfg.BodyTimeout, WriteTimeout: cfg.WriteTimeout, Logger: opts.Logger,
		MinBodyRate: cfg.MinBodyRate, BodyRateGrace: cfg.BodyRateGrace}
	logs := a.logs
	a.Analytics = analytics.New(logs, analytics.Options{Logger: opts.Logger, Accounts: cfg.Accounts.Names(),
		Retention: logRetention(a.Store)})
	mw.Analytics = a.Analytics
	var listeners []*server.Listener
	for _, s := range services {
		if !cfg.Enabled(s.name) {
			continue
		}
		svc, err := s.build(deps)
		if err != nil {
			return fmt.Errorf("%s service: %w", s.name, err)
		}
		blobs, isBlob := svc.(*blob.Service)
		if isBlob {
			if err := logs.attach(blobs, cfg.Accounts.Names()); err != nil {
				return err
			}
			// The Blob endpoint also serves the Data Lake (dfs) API.
			svc = dfs.Mount(blobs, deps)
		}
		handler := server.Handler(svc, mw)
		a.handlers[s.name] = handler
		listeners = append(listeners, &server.Listener{Name: s.name, Addr: s.endpoint(cfg).Addr(),
			Handler: handler, ConnState: a.Metrics.ConnState(s.name), MaxConns: cfg.MaxConns})
		if isBlob && cfg.DFSPort >= 0 {
			listeners = append(listeners, &server.Listener{Name: "dfs", Addr: config.Endpoint{Host: cfg.Blob.Host, Port: cfg.DFSPort}.Addr(),
				Handler: handler, ConnState: a.Metrics.ConnState("dfs"), MaxConns: cfg.MaxConns})
		}
		if b, ok := svc.(server.Background); ok {
			a.background = append(a.background, b)
		}
	}
	a.background = append(a.background, a.Analytics)
	srv, err := server.Listen(listeners, tlsConfig)
	if err != nil {
		return err
	}
	a.Server = srv
	account := cfg.Accounts.Names()[0]
	for _, l := range srv.Listeners() {
		a.Endpoints[l.Name] = fmt.Sprintf("%s://%s/%s", srv.Scheme(), l.Bound(), account)
	}
	return nil
}

// guardCopySources tells the copy-source policy, once every listener is
// bound and before any is served, which are storage listeners (copy
// sources as any host is) and which are not: the admin listener (console,
// /metrics) and SMB are never copy sources (fetchguard).
func (a *App) guardCopySources() error {
	var storage, other []string
	for _, l := range a.Server.Listeners() {
		storage = append(storage, l.Bound())
	}
	if a.Admin != nil {
		other = append(other, a.Admin.Addr())
	}
	if a.SMB != nil {
		other = append(other, a.SMBAddr)
	}
	return a.copySources.SetListeners(storage, other)
}

// closeSMB closes the SMB endpoint, when it runs.
func (a *App) closeSMB() error {
	if a.SMB == nil {
		return nil
	}
	return a.SMB.Close()
}

// allLoopback reports whether every REST listener is bound to a loopback
// address: a local emulator, whose copy sources may be anywhere
// (fetchguard).
func allLoopback(cfg *config.Config) bool {
	for _, e := range []config.Endpoint{cfg.Blob, cfg.Queue, cfg.Table, cfg.File} {
		if ip, err := netip.ParseAddr(e.Host); err == nil {
			if !ip.IsLoopback() {
				return false
			}
		} else if e.Host != "localhost" {
			return false
		}
	}
	return true
}

func loadTLS(cfg *config.Config) (*tls.Config, error) {
	if cfg.Cert == "" {
		return nil, nil
	}
	var cert tls.Certificate
	var err error
	if cfg.Key != "" {
		cert, err = tls.LoadX509KeyPair(cfg.Cert, cfg.Key)
	} else {
		cert, err = loadPFX(cfg.Cert, cfg.Pwd)
	}
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s: %w", cfg.Cert, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// loadPFX reads a PKCS #12 (.pfx) certificate with its private key and
// chain, as Azurite's --cert with --pwd accepts.
func loadPFX(path, password string) (tls.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, leaf, chain, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return tls.Certificate{}, err
	}
	cert := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
	for _, c := range chain {
		cert.Certificate = append(cert.Certificate, c.Raw)
	}
	return cert, nil
}

// Close stops the listeners (letting in-flight requests finish until ctx
// ends), stops the collector, and closes storage.
func (a *App) Close(ctx context.Context) error {
	err := errors.Join(a.shutdownAdmin(ctx), a.Server.Shutdown(ctx), a.closeSMB())
	a.stop()
	<-a.done
	return errors.Join(err, a.closeStorage())
}

func (a *App) closeStorage() error {
	return errors.Join(a.Extents.Close(), a.Store.Close())
}

// ConnectionString is a ready-to-paste connection string for the first
// account, naming every running service.
func (a *App) ConnectionString() string {
	name := a.Config.Accounts.Names()[0]
	acct, _ := a.Config.Accounts.Lookup(name)
	var b strings.Builder
	fmt.Fprintf(&b, "DefaultEndpointsProtocol=%s;AccountName=%s;AccountKey=%s;", a.Server.Scheme(), name, base64.StdEncoding.EncodeToString(acct.Keys[0]))
	for _, s := range []struct{ name, key string }{{"blob", "BlobEndpoint"}, {"queue", "QueueEndpoint"},
		{"table", "TableEndpoint"}, {"file", "FileEndpoint"}} {
		if u, ok := a.Endpoints[s.name]; ok {
			fmt.Fprintf(&b, "%s=%s;", s.key, u)
		}
	}
	return b.String()
}
