package s3extent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// envURL names the variable holding the S3 location the tests use, such as
// s3://lazuli-test?endpoint=127.0.0.1:8333&secure=false (scripts/s3.sh
// prints it); credentials come from AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY. Each test works under a prefix of its own.
const envURL = "LAZULI_TEST_S3"

// testLocation returns a fresh prefix in the test bucket, creating the
// bucket if needed, and deletes what the test left there when it ends. It
// skips t when no server is configured, and fails it in CI, where the
// engine's tests would otherwise pass by not running.
func testLocation(t testing.TB) Location {
	t.Helper()
	raw := os.Getenv(envURL)
	if raw == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("no S3 server in CI: set %s (scripts/s3.sh start prints it)", envURL)
		}
		t.Skipf("no S3 server: set %s to an s3:// URL (scripts/s3.sh start prints one)", envURL)
	}
	loc, err := ParseURL(raw)
	if err != nil {
		t.Fatalf("%s: %v", envURL, err)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	loc.Prefix += "t-" + hex.EncodeToString(b[:]) + "/"
	client := testClient(t, loc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ok, err := client.BucketExists(ctx, loc.Bucket); err != nil {
		t.Fatalf("bucket %s: %v", loc.Bucket, err)
	} else if !ok {
		err := client.MakeBucket(ctx, loc.Bucket, minio.MakeBucketOptions{Region: loc.Region})
		if err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" {
			t.Fatalf("make bucket %s: %v", loc.Bucket, err)
		}
	}
	t.Cleanup(func() { emptyPrefix(t, client, loc) })
	return loc
}

// testClient is a client of the test server, for checks and cleanup that
// go around the engine.
func testClient(t testing.TB, loc Location) *minio.Client {
	t.Helper()
	client, err := minio.New(loc.Endpoint, &minio.Options{Creds: credentials.NewEnvAWS(), Secure: loc.Secure, Region: loc.Region})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// emptyPrefix deletes every object and aborts every upload under loc's
// prefix.
func emptyPrefix(t testing.TB, client *minio.Client, loc Location) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for obj := range client.ListObjects(ctx, loc.Bucket, minio.ListObjectsOptions{Prefix: loc.Prefix, Recursive: true}) {
		if obj.Err != nil {
			t.Errorf("cleanup: list %s: %v", loc.Prefix, obj.Err)
			return
		}
		if err := client.RemoveObject(ctx, loc.Bucket, obj.Key, minio.RemoveObjectOptions{}); err != nil {
			t.Errorf("cleanup: remove %s: %v", obj.Key, err)
		}
	}
	for up := range client.ListIncompleteUploads(ctx, loc.Bucket, loc.Prefix, true) {
		if up.Err != nil {
			t.Errorf("cleanup: list uploads: %v", up.Err)
			return
		}
		if err := client.RemoveIncompleteUpload(ctx, loc.Bucket, up.Key); err != nil {
			t.Errorf("cleanup: abort upload of %s: %v", up.Key, err)
		}
	}
}

// openTest opens an engine on a fresh prefix, closed when t ends.
func openTest(t testing.TB, opts Options) (*Engine, Location) {
	t.Helper()
	loc := testLocation(t)
	return openAt(t, loc, opts), loc
}

func openAt(t testing.TB, loc Location, opts Options) *Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := Open(ctx, loc, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
