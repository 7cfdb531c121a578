package metrics_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// scrape reads /metrics and parses it as Prometheus scrapers do.
func scrape(t *testing.T, in *lazulitest.Instance) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(in.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// find returns the metric of family name whose labels include want.
func find(families map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := families[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func value(m *dto.Metric) float64 {
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return -1
}

// After a known workload the scrape shows exactly its requests, bytes,
// latency observations and queue depth, and the store's commits account
// for every update.
func TestScrapeAfterKnownWorkload(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob", "queue"}})
	ctx := context.Background()
	opts := azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}
	bc, err := azblob.NewClientFromConnectionString(in.ConnectionString, &azblob.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	qc, err := azqueue.NewServiceClientFromConnectionString(in.ConnectionString, &azqueue.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bc.CreateContainer(ctx, "metrics", nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := bc.UploadBuffer(ctx, "metrics", name, bytes.Repeat([]byte("x"), 100), nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		resp, err := bc.DownloadStream(ctx, "metrics", "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if _, err := bc.ServiceClient().NewContainerClient("metrics").NewBlobClient("missing").GetProperties(ctx, nil); err == nil {
		t.Fatal("properties of a missing blob")
	}
	resp, err := http.Post(in.AdminURL+"/faults", "application/json", strings.NewReader(`{"operation":"GetBlob","count":1,"status":503}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("add fault: %v %v", resp, err)
	}
	if _, err := bc.DownloadStream(ctx, "metrics", "a", nil); err == nil {
		t.Fatal("the injected 503 did not arrive")
	}
	q := qc.NewQueueClient("depth")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := q.EnqueueMessage(ctx, "metrics", nil); err != nil {
			t.Fatal(err)
		}
	}

	f := scrape(t, in)
	counts := []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"service": "blob", "operation": "CreateContainer", "status": "201", "code": ""}, 1},
		{map[string]string{"service": "blob", "operation": "PutBlob", "status": "201", "code": ""}, 3},
		{map[string]string{"service": "blob", "operation": "GetBlob", "status": "200", "code": ""}, 2},
		{map[string]string{"service": "blob", "operation": "GetBlob", "status": "503", "code": "ServerBusy"}, 1},
		{map[string]string{"service": "blob", "operation": "GetBlobProperties", "status": "404", "code": "BlobNotFound"}, 1},
		{map[string]string{"service": "queue", "operation": "CreateQueue", "status": "201", "code": ""}, 1},
		{map[string]string{"service": "queue", "operation": "PutMessage", "status": "201", "code": ""}, 4},
	}
	for _, c := range counts {
		if got := value(find(f, "lazuli_requests_total", c.labels)); got != c.want {
			t.Errorf("lazuli_requests_total%v = %v, want %v", c.labels, got, c.want)
		}
	}
	if n := len(f["lazuli_requests_total"].Metric); n != len(counts) {
		t.Errorf("%d request series, want %d", n, len(counts))
	}
	if got := value(find(f, "lazuli_request_body_bytes_total", map[string]string{"service": "blob"})); got != 300 {
		t.Errorf("blob request body bytes %v, want 300", got)
	}
	if got := value(find(f, "lazuli_response_body_bytes_total", map[string]string{"service": "blob"})); got < 200 {
		t.Errorf("blob response body bytes %v, want at least the 200 downloaded", got)
	}
	h := find(f, "lazuli_request_duration_seconds", map[string]string{"service": "blob", "operation": "GetBlob"})
	if h == nil || h.Histogram.GetSampleCount() != 3 {
		t.Errorf("GetBlob latency histogram %v, want 3 observations", h)
	}
	if got := value(find(f, "lazuli_queue_messages", map[string]string{"account": lazulitest.Account, "queue": "depth"})); got != 4 {
		t.Errorf("queue depth %v, want 4", got)
	}
	if got := value(find(f, "lazuli_open_connections", map[string]string{"listener": "blob"})); got < 1 {
		t.Errorf("open blob connections %v, want at least the SDK's one", got)
	}
	var updates float64
	for _, outcome := range []string{"ok", "error"} {
		updates += max(value(find(f, "lazuli_store_transactions_total", map[string]string{"kind": "update", "outcome": outcome})), 0)
	}
	if updates < 9 {
		t.Errorf("%v store updates counted, want at least the workload's 9 writes", updates)
	}
	batches := find(f, "lazuli_store_commit_batch_updates", nil)
	commits := value(find(f, "lazuli_store_commits_total", nil))
	if batches == nil || commits < 1 || float64(batches.Histogram.GetSampleCount()) != commits {
		t.Fatalf("commits %v, batch histogram %v", commits, batches)
	}
	// Every update rode in exactly one group commit (the sqlite engine).
	if got := batches.Histogram.GetSampleSum(); got != updates {
		t.Errorf("updates carried by commits %v, want the %v counted", got, updates)
	}
}
