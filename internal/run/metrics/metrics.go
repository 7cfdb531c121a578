// Package metrics collects what Lazuli exposes at /metrics on its admin
// listener, in the Prometheus text format: requests by service, operation,
// status and error code, their latency and bytes, the store's transactions
// and group commits, queue depths, open connections and, with content on
// S3, the object store's requests and bytes. Each server has its own
// registry, so several servers in one test process never mix figures.
package metrics

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lazuli-storage/lazuli/internal/engine/extent/s3extent"
)

// Metrics is one server's set of metrics.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	bytesIn  *prometheus.CounterVec
	bytesOut *prometheus.CounterVec
	conns    *prometheus.GaugeVec
	txs      *prometheus.CounterVec
	// views and updates are txs' series, resolved once.
	views, updates txSeries
	commits        prometheus.Counter
	batchSize      prometheus.Histogram
	// series holds, by requestKey, the *requestSeries each kind of answer
	// updates: WithLabelValues hashes and checks every label value on
	// each call, which every request would otherwise pay again.
	series sync.Map
}

// requestKey is the labels of one kind of answered request.
type requestKey struct {
	service, operation string
	status             int
	code               string
}

// requestSeries are the series one kind of answered request updates.
type requestSeries struct {
	requests          prometheus.Counter
	latency           prometheus.Observer
	bytesIn, bytesOut prometheus.Counter
}

// QueueDepth is the number of unexpired messages of one queue.
type QueueDepth struct {
	Account, Queue string
	Messages       int
}

// Options are the parts of the metrics read at scrape time.
type Options struct {
	// QueueDepths lists every queue's depth; nil leaves the metric out.
	QueueDepths func(ctx context.Context) ([]QueueDepth, error)
	// S3Traffic reads what the S3 extent engine sent and received; nil
	// (content elsewhere) leaves the lazuli_s3_* metrics out.
	S3Traffic func() s3extent.Traffic
}

// New registers every metric in a fresh registry.
func New(opts Options) *Metrics {
	m := &Metrics{registry: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lazuli_requests_total",
		Help: "Requests answered, by service, operation (route table name), HTTP status and Azure error code."},
		[]string{"service", "operation", "status", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "lazuli_request_duration_seconds",
		Help:    "Time from the request's arrival to the end of its answer, by service and operation.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"service", "operation"})
	m.bytesIn = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lazuli_request_body_bytes_total",
		Help: "Request body bytes read, by service."}, []string{"service"})
	m.bytesOut = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lazuli_response_body_bytes_total",
		Help: "Response body bytes written, by service."}, []string{"service"})
	m.conns = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "lazuli_open_connections",
		Help: "Client connections open now, by listener."}, []string{"listener"})
	m.txs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lazuli_store_transactions_total",
		Help: "Store transactions run, by kind (view, update) and outcome (ok, error)."}, []string{"kind", "outcome"})
	m.views, m.updates = newTxSeries(m.txs, "view"), newTxSeries(m.txs, "update")
	m.commits = prometheus.NewCounter(prometheus.CounterOpts{Name: "lazuli_store_commits_total",
		Help: "Transactions the store engine committed; with group commit one carries several updates."})
	m.batchSize = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "lazuli_store_commit_batch_updates",
		Help:    "Updates carried by each committed transaction (group commit batch size).",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256}})
	m.registry.MustRegister(m.requests, m.latency, m.bytesIn, m.bytesOut, m.conns, m.txs, m.commits, m.batchSize,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if opts.QueueDepths != nil {
		m.registry.MustRegister(&queueDepths{list: opts.QueueDepths})
	}
	if opts.S3Traffic != nil {
		m.registry.MustRegister(&s3Traffic{read: opts.S3Traffic})
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Request records one answered request (the server middleware calls it).
func (m *Metrics) Request(service, operation string, status int, code string, in, out int64, d time.Duration) {
	if operation == "" {
		operation = "unrouted"
	}
	s := m.requestSeries(requestKey{service: service, operation: operation, status: status, code: code})
	s.requests.Inc()
	s.latency.Observe(d.Seconds())
	s.bytesIn.Add(float64(in))
	s.bytesOut.Add(float64(out))
}

// requestSeries returns the series of the requests labelled k.
func (m *Metrics) requestSeries(k requestKey) *requestSeries {
	if s, ok := m.series.Load(k); ok {
		return s.(*requestSeries)
	}
	s, _ := m.series.LoadOrStore(k, &requestSeries{
		requests: m.requests.WithLabelValues(k.service, k.operation, strconv.Itoa(k.status), k.code),
		latency:  m.latency.WithLabelValues(k.service, k.operation),
		bytesIn:  m.bytesIn.WithLabelValues(k.service),
		bytesOut: m.bytesOut.WithLabelValues(k.service),
	})
	return s.(*requestSeries)
}

// ConnState counts open connections of listener; give it to the listener's
// http.Server as its ConnState hook.
func (m *Metrics) ConnState(listener string) func(net.Conn, http.ConnState) {
	g := m.conns.WithLabelValues(listener)
	return func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			g.Inc()
		case http.StateClosed, http.StateHijacked:
			g.Dec()
		}
	}
}

// Commit records one committed store transaction carrying updates Updates.
func (m *Metrics) Commit(updates int) {
	m.commits.Inc()
	m.batchSize.Observe(float64(updates))
}

// queueDepths reads every queue's depth at scrape time.
type queueDepths struct {
	list func(ctx context.Context) ([]QueueDepth, error)
}

var queueDepthDesc = prometheus.NewDesc("lazuli_queue_messages",
	"Unexpired messages (visible or not) in each queue, counted at scrape time.", []string{"account", "queue"}, nil)

func (q *queueDepths) Describe(ch chan<- *prometheus.Desc) { ch <- queueDepthDesc }

func (q *queueDepths) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	depths, err := q.list(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueDepthDesc, err)
		return
	}
	for _, d := range depths {
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(d.Messages), d.Account, d.Queue)
	}
}
