package app

import (
	"github.com/lazuli-storage/lazuli/internal/config"
	"github.com/lazuli-storage/lazuli/internal/file"
	"github.com/lazuli-storage/lazuli/internal/smb"
)

// startSMB binds the File service's SMB endpoint when the File service or
// smb alone is enabled; it shares the store and extents with REST.
func (a *App) startSMB(cfg *config.Config, opts Options) error {
	if !cfg.Enabled("file") && !cfg.Enabled("smb") {
		return nil
	}
	srv := smb.New(file.NewSMBFS(a.Store, a.Extents, opts.Clock), a.byteLocks, cfg.Accounts, opts.Clock, opts.Logger)
	addr, err := srv.Listen(cfg.SMB.Addr())
	if err != nil {
		return err
	}
	a.SMB = srv
	a.SMBAddr = addr.String()
	go srv.Serve()
	return nil
}
