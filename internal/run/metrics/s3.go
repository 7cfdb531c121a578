package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lazuli-storage/lazuli/internal/engine/extent/s3extent"
)

// s3Traffic reads the S3 extent engine's counts at scrape time.
type s3Traffic struct {
	read func() s3extent.Traffic
}

var (
	s3RequestsDesc = prometheus.NewDesc("lazuli_s3_requests_total",
		"Requests the S3 extent engine sent to the object store, by kind (put, get, head, delete, list, part, multipart, other); retries count again.",
		[]string{"kind"}, nil)
	s3BytesDesc = prometheus.NewDesc("lazuli_s3_body_bytes_total",
		"Body bytes the S3 extent engine sent to the object store (up) and received from it (down).",
		[]string{"direction"}, nil)
)

func (s *s3Traffic) Describe(ch chan<- *prometheus.Desc) {
	ch <- s3RequestsDesc
	ch <- s3BytesDesc
}

func (s *s3Traffic) Collect(ch chan<- prometheus.Metric) {
	t := s.read()
	for _, kind := range s3extent.Kinds {
		ch <- prometheus.MustNewConstMetric(s3RequestsDesc, prometheus.CounterValue, float64(t.Requests[kind]), kind)
	}
	ch <- prometheus.MustNewConstMetric(s3BytesDesc, prometheus.CounterValue, float64(t.BytesUp), "up")
	ch <- prometheus.MustNewConstMetric(s3BytesDesc, prometheus.CounterValue, float64(t.BytesDown), "down")
}
