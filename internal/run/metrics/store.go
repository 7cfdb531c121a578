package metrics

import (
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Store wraps st so that its transactions are counted, and so that its
// commits are counted too: through the engine's own report when it groups
// Updates (store.CommitObserver), else one commit per successful Update.
func (m *Metrics) Store(st store.Store) store.Store {
	c := &countingStore{Store: st, m: m}
	if obs, ok := st.(store.CommitObserver); ok {
		obs.ObserveCommits(m.Commit)
		c.grouped = true
	}
	return c
}

type countingStore struct {
	store.Store
	m       *Metrics
	grouped bool
}

func (c *countingStore) View(ctx context.Context, fn func(store.Tx) error) error {
	err := c.Store.View(ctx, fn)
	c.m.txs.WithLabelValues("view", outcome(err)).Inc()
	return err
}

func (c *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	err := c.Store.Update(ctx, fn)
	c.m.txs.WithLabelValues("update", outcome(err)).Inc()
	if err == nil && !c.grouped {
		c.m.Commit(1)
	}
	return err
}

func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}
