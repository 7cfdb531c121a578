package metrics_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/check/s3test"
)

// With content on S3, the scrape shows the object store requests and
// bytes a blob's upload and download cost: one PUT carrying its 64 KiB up,
// and GETs bringing them down. Without S3 the lazuli_s3_* metrics are
// absent.
func TestScrapeS3Traffic(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}, Extents: s3test.S3Extents(t)})
	ctx := context.Background()
	bc, err := azblob.NewClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bc.CreateContainer(ctx, "traffic", nil); err != nil {
		t.Fatal(err)
	}
	const size = 64 << 10
	s3 := func(name, label, labelValue string) float64 {
		t.Helper()
		return value(find(scrape(t, in), name, map[string]string{label: labelValue}))
	}
	puts, up := s3("lazuli_s3_requests_total", "kind", "put"), s3("lazuli_s3_body_bytes_total", "direction", "up")
	if _, err := bc.UploadBuffer(ctx, "traffic", "b", bytes.Repeat([]byte("s"), size), nil); err != nil {
		t.Fatal(err)
	}
	if d := s3("lazuli_s3_requests_total", "kind", "put") - puts; d != 1 {
		t.Errorf("a 64 KiB upload cost %v S3 PUTs, want 1", d)
	}
	if d := s3("lazuli_s3_body_bytes_total", "direction", "up") - up; d < size {
		t.Errorf("a 64 KiB upload sent %v bytes to S3", d)
	}
	gets, down := s3("lazuli_s3_requests_total", "kind", "get"), s3("lazuli_s3_body_bytes_total", "direction", "down")
	resp, err := bc.DownloadStream(ctx, "traffic", "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != size {
		t.Fatalf("downloaded %d bytes: %v", n, err)
	}
	if d := s3("lazuli_s3_requests_total", "kind", "get") - gets; d < 1 {
		t.Errorf("a 64 KiB download cost %v S3 GETs", d)
	}
	if d := s3("lazuli_s3_body_bytes_total", "direction", "down") - down; d < size {
		t.Errorf("a 64 KiB download brought %v bytes from S3", d)
	}

	local := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}, InMemory: true})
	if f := scrape(t, local)["lazuli_s3_requests_total"]; f != nil {
		t.Errorf("a server without S3 reports %v", f)
	}
}
