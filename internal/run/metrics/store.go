package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

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
	c.m.views.count(err)
	return err
}

func (c *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	err := c.Store.Update(ctx, fn)
	c.m.updates.count(err)
	if err == nil && !c.grouped {
		c.m.Commit(1)
	}
	return err
}

// txSeries are the transaction counters of one kind, by outcome.
type txSeries struct{ ok, failed prometheus.Counter }

func newTxSeries(txs *prometheus.CounterVec, kind string) txSeries {
	return txSeries{ok: txs.WithLabelValues(kind, "ok"), failed: txs.WithLabelValues(kind, "error")}
}

// count counts one transaction that ended with err.
func (s txSeries) count(err error) {
	if err != nil {
		s.failed.Inc()
		return
	}
	s.ok.Inc()
}
