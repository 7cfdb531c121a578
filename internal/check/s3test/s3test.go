// Package s3test gives tests an S3 server's location to keep content in
// (the one LAZULI_TEST_S3 names, which scripts/s3.sh prints) and a client
// of it for checks that go around Lazuli. It is apart from lazulitest so
// that a user's test importing lazulitest does not pull in an S3 client.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/lazuli-storage/lazuli/internal/engine/extent/s3extent"
)

// S3Env names the variable holding the S3 location tests keep content in,
// such as s3://lazuli-test?endpoint=127.0.0.1:8333&secure=false
// (scripts/s3.sh start prints it with the credentials, which come from
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
const S3Env = "LAZULI_TEST_S3"

// S3Extents returns an extents URL (for lazulitest.Options.Extents or --extents)
// naming a fresh prefix of the bucket S3Env names, creating the bucket if
// needed. It skips t when S3Env is unset, and fails it under CI, where the
// tests would otherwise pass by not running.
func S3Extents(t testing.TB) string {
	t.Helper()
	raw := os.Getenv(S3Env)
	if raw == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("no S3 server in CI: set %s (scripts/s3.sh start prints it)", S3Env)
		}
		t.Skipf("no S3 server: set %s to an s3:// URL (scripts/s3.sh start prints one)", S3Env)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("s3test: %s: %v", S3Env, err)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/lzt-" + hex.EncodeToString(b[:])
	extents := u.String()
	loc, client := S3Client(t, extents)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ok, err := client.BucketExists(ctx, loc.Bucket); err != nil {
		t.Fatalf("s3test: bucket %s: %v", loc.Bucket, err)
	} else if !ok {
		err := client.MakeBucket(ctx, loc.Bucket, minio.MakeBucketOptions{Region: loc.Region})
		if err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" {
			t.Fatalf("s3test: make bucket %s: %v", loc.Bucket, err)
		}
	}
	return extents
}

// S3Client is a client of the S3 server an extents URL names, with the
// URL's location, for checks that go around Lazuli.
func S3Client(t testing.TB, extents string) (s3extent.Location, *minio.Client) {
	t.Helper()
	loc, err := s3extent.ParseURL(extents)
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	client, err := minio.New(loc.Endpoint, &minio.Options{Creds: credentials.NewEnvAWS(), Secure: loc.Secure, Region: loc.Region})
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	return loc, client
}

// WantObjects fails t unless the prefix extents names holds at least one
// object, and returns how many it holds: a test whose content must have
// gone through the object store, not only inline in the records, says so.
func WantObjects(t testing.TB, extents string) int {
	t.Helper()
	loc, client := S3Client(t, extents)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := 0
	for obj := range client.ListObjects(ctx, loc.Bucket, minio.ListObjectsOptions{Prefix: loc.Prefix, Recursive: true}) {
		if obj.Err != nil {
			t.Fatalf("s3test: list %s: %v", extents, obj.Err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("no object under %s: the content did not reach S3", extents)
	}
	return n
}
