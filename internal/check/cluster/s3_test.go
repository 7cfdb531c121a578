package cluster_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/s3test"

	"github.com/minio/minio-go/v7"
)

// extentsEnv, set to "s3" in a re-executed test binary, gives every
// cluster started with startCluster a fresh prefix of the S3 server
// s3test.S3Env names for its content, as --extents s3://... does, so
// that the same tests show two nodes sharing content in the object store
// rather than in PostgreSQL's chunk rows.
const extentsEnv = "LAZULI_CLUSTER_EXTENTS"

// clusterExtents is the extents URL a cluster's nodes share: none (content
// beside the records, in PostgreSQL) unless extentsEnv asks for S3.
func clusterExtents(t *testing.T) string {
	t.Helper()
	switch os.Getenv(extentsEnv) {
	case "":
		return ""
	case "s3":
		return s3test.S3Extents(t)
	default:
		t.Fatalf("%s=%q: want s3 or nothing", extentsEnv, os.Getenv(extentsEnv))
		return ""
	}
}

// wantContentOnS3 fails t when the cluster keeps content on S3 but its
// prefix holds no object: the test's content must have gone through the
// object store, not only inline in the records.
func (c *cluster) wantContentOnS3(t *testing.T) {
	t.Helper()
	if c.extents == "" {
		return
	}
	loc, client := s3test.S3Client(t, c.extents)
	for obj := range client.ListObjects(c.ctx, loc.Bucket, minio.ListObjectsOptions{Prefix: loc.Prefix, Recursive: true}) {
		must(t, obj.Err)
		return
	}
	t.Fatalf("no object under %s: the content did not reach S3", c.extents)
}

// onS3Tests are the cluster tests whose content goes through the extent
// engine: blobs and file ranges written on one node and read on the other.
var onS3Tests = []string{
	"TestBlobCounterAcrossNodes", "TestBlobLeaseAcrossNodes", "TestBlocksStagedOnOneNodeCommittedOnAnother",
	"TestETagsIncreaseAcrossNodes", "TestBlobExpiryAcrossNodes", "TestImmutabilityAcrossNodes",
	"TestContainerSoftDeleteAcrossNodes", "TestFileRangesAcrossNodes", "TestFileLeaseAcrossNodes",
	"TestDirectoryCreateRaceAcrossNodes", "TestShareSoftDeleteAcrossNodes",
}

// TestClusterWithContentOnS3 runs the blob and file cluster tests again in
// a second pass of this test binary whose nodes keep content on S3, and
// requires every one of them to pass there (none skipped, none missing).
func TestClusterWithContentOnS3(t *testing.T) {
	if os.Getenv(extentsEnv) != "" {
		t.Skip("this is the S3 pass itself")
	}
	s3test.S3Extents(t) // skips, or fails in CI, without a server
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.v", "-test.count=1", "-test.run=^("+strings.Join(onS3Tests, "|")+")$")
	cmd.Env = append(os.Environ(), extentsEnv+"=s3")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cluster tests with content on S3: %v\n%s", err, out)
	}
	passed := regexp.MustCompile(`(?m)^--- PASS: (\w+) `).FindAllStringSubmatch(string(out), -1)
	got := map[string]bool{}
	for _, m := range passed {
		got[m[1]] = true
	}
	for _, name := range onS3Tests {
		if !got[name] {
			t.Errorf("%s did not pass with content on S3:\n%s", name, out)
		}
	}
}
