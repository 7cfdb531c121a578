package app

import (
	"context"

	"github.com/lazuli-storage/lazuli/internal/admin"
	"github.com/lazuli-storage/lazuli/internal/config"
)

// listenAdmin binds the admin listener unless --noAdmin.
func (a *App) listenAdmin(cfg *config.Config, opts Options) error {
	if cfg.NoAdmin {
		return nil
	}
	h := admin.New(admin.Options{Store: a.Store, Accounts: cfg.Accounts, Clock: a.Clock, Faults: a.Faults,
		Token: cfg.AdminToken, Logger: opts.Logger})
	srv, err := admin.Listen(cfg.Admin.Addr(), h)
	if err != nil {
		return err
	}
	a.Admin = srv
	return nil
}

func (a *App) serveAdmin() {
	if a.Admin != nil {
		a.Admin.Serve()
	}
}

func (a *App) shutdownAdmin(ctx context.Context) error {
	if a.Admin == nil {
		return nil
	}
	return a.Admin.Shutdown(ctx)
}

// AdminURL is the admin listener's base URL, "" when it is off.
func (a *App) AdminURL() string {
	if a.Admin == nil {
		return ""
	}
	return a.Admin.URL()
}
