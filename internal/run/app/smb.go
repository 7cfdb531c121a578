package app

import (
	"context"
	"fmt"

	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/internal/service/file"
	"github.com/lazuli-storage/lazuli/internal/service/smb"
)

// startSMB binds the File service's SMB endpoint when the File service or
// smb alone is enabled; it shares the store and extents with REST.
func (a *App) startSMB(cfg *config.Config, opts Options) error {
	if !cfg.Enabled("file") && !cfg.Enabled("smb") {
		return nil
	}
	srv := smb.New(file.NewSMBFS(a.Store, a.Extents, opts.Clock, a.Liveness), a.byteLocks, a.changes, cfg.Accounts, opts.Clock, opts.Logger)
	srv.Limits = smb.Limits{AuthTimeout: cfg.SMBAuthTimeout, IdleTimeout: cfg.SMBIdleTimeout, MaxConns: cfg.MaxConns,
		ConnState: a.Metrics.ConnState("smb")}
	// The record exists before the first open, so other nodes never judge
	// a fresh open dead.
	if err := a.Liveness.Renew(context.Background()); err != nil {
		return fmt.Errorf("liveness record: %w", err)
	}
	addr, err := srv.Listen(cfg.SMB.Addr())
	if err != nil {
		return err
	}
	a.SMB = srv
	a.SMBAddr = addr.String()
	srv.Policy = smb.Policy{RequireSigning: cfg.SMBRequireSigning, RequireEncryption: cfg.SMBRequireEncryption}
	// Only a node that grants opens needs its liveness renewed; every
	// node judges the others' from the store.
	a.background = append(a.background, a.Liveness)
	go srv.Serve()
	return nil
}
