package cluster_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/s3test"
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
	if c.extents != "" {
		s3test.WantObjects(t, c.extents)
	}
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
	runPass(t, onS3Tests, extentsEnv+"=s3")
}

// runPass runs the named tests in a pass of this test binary with env
// added to its environment, and requires every one of them to pass there
// (none skipped, none missing).
func runPass(t *testing.T, names []string, env ...string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.v", "-test.count=1", "-test.run=^("+strings.Join(names, "|")+")$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the pass with %v: %v\n%s", env, err, out)
	}
	passed := regexp.MustCompile(`(?m)^--- PASS: (\w+) `).FindAllStringSubmatch(string(out), -1)
	got := map[string]bool{}
	for _, m := range passed {
		got[m[1]] = true
	}
	for _, name := range names {
		if !got[name] {
			t.Errorf("%s did not pass with %v:\n%s", name, env, out)
		}
	}
}
