package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
	"github.com/lazuli-storage/lazuli/internal/run/admin"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
)

// logSink hands Storage Analytics log files to the Blob service, once it
// is built; without a Blob service there is nowhere to write them, and
// the logs are dropped with the logger's warning.
type logSink struct {
	blobs *blob.Service
}

var errNoBlobService = errors.New("the Blob service is not running: Storage Analytics logs have no $logs container")

// attach makes blobs the sink and gives every configured account its
// $logs container, which every Azure account has.
func (l *logSink) attach(blobs *blob.Service, accounts []string) error {
	l.blobs = blobs
	for _, account := range accounts {
		if err := l.ensure(context.Background(), account); err != nil {
			return err
		}
	}
	return nil
}

// ensure gives account its $logs container if it has none (after a reset
// too); without a Blob service there is none to give.
func (l *logSink) ensure(ctx context.Context, account string) error {
	if l.blobs == nil {
		return nil
	}
	if err := l.blobs.EnsureLogs(ctx, account); err != nil {
		return fmt.Errorf("the $logs container of %s: %w", account, err)
	}
	return nil
}

func (l *logSink) WriteLog(ctx context.Context, account, name string, body []byte, meta map[string]string) (bool, error) {
	if l.blobs == nil {
		return false, errNoBlobService
	}
	return l.blobs.WriteLog(ctx, account, name, body, meta)
}

func (l *logSink) ListLogs(ctx context.Context, account, prefix string) ([]string, error) {
	if l.blobs == nil {
		return nil, errNoBlobService
	}
	return l.blobs.ListLogs(ctx, account, prefix)
}

func (l *logSink) DeleteLog(ctx context.Context, account, name string) error {
	if l.blobs == nil {
		return errNoBlobService
	}
	return l.blobs.DeleteLog(ctx, account, name)
}

// Reset deletes account's data (every account's when account is "") as
// the admin API's reset does, and gives it back its $logs container.
func (a *App) Reset(ctx context.Context, account string) (int, error) {
	return admin.ResetFresh(ctx, a.Store, a.Config.Accounts, account, a.Clock.Now(), a.logs.ensure)
}

// logRetention reads an account's log retention, in days (0: keep), from
// its service properties, as they are now.
func logRetention(st store.Store) func(ctx context.Context, account, service string) (int, error) {
	return func(ctx context.Context, account, service string) (int, error) {
		props, err := svcprops.Get(ctx, st, account, service)
		if err != nil || props.Logging == nil {
			return 0, err
		}
		if rp := props.Logging.RetentionPolicy; rp.Enabled && rp.Days != nil {
			return *rp.Days, nil
		}
		return 0, nil
	}
}
