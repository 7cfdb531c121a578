package app

import (
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/s3extent"
	"github.com/lazuli-storage/lazuli/internal/run/admin"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/internal/run/console"
	"github.com/lazuli-storage/lazuli/internal/run/metrics"
	"github.com/lazuli-storage/lazuli/internal/service/queue"
)

// newMetrics builds the server's metrics; queue depths are read from its
// store at scrape time, and the S3 traffic from its extent engine.
func newMetrics(a *App) *metrics.Metrics {
	return metrics.New(metrics.Options{S3Traffic: s3Traffic(a.Extents), QueueDepths: func(ctx context.Context) ([]metrics.QueueDepth, error) {
		depths, err := queue.Depths(ctx, a.Store, a.Clock.Now())
		out := make([]metrics.QueueDepth, len(depths))
		for i, d := range depths {
			out[i] = metrics.QueueDepth{Account: d.Account, Queue: d.Queue, Messages: d.Messages}
		}
		return out, err
	}})
}

// s3Traffic is the Traffic method of the S3 engine ext is or wraps, nil
// when the content lives elsewhere.
func s3Traffic(ext extent.Engine) func() s3extent.Traffic {
	for {
		switch e := ext.(type) {
		case *s3extent.Engine:
			return e.Traffic
		case interface{ Unwrap() extent.Engine }:
			ext = e.Unwrap()
		default:
			return nil
		}
	}
}

// listenAdmin binds the admin listener unless --noAdmin.
func (a *App) listenAdmin(cfg *config.Config, opts Options) error {
	if cfg.NoAdmin {
		return nil
	}
	h := admin.New(admin.Options{Store: a.Store, Accounts: cfg.Accounts, Clock: a.Clock, Faults: a.Faults,
		Token: cfg.AdminToken, Hosts: cfg.AdminHosts, Logger: opts.Logger, Fresh: a.logs.ensure})
	h.Handle("GET /metrics", a.Metrics.Handler())
	console.New(console.Options{Services: a.handlers, Endpoints: a.Endpoints, Accounts: cfg.Accounts, Store: a.Store, Clock: a.Clock}).Register(h.Handle)
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
