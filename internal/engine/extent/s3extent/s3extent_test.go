package s3extent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	storememory "github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw     string
		want    Location
		wantErr bool
	}{
		{raw: "s3://b", want: Location{Bucket: "b", Endpoint: "s3.amazonaws.com", Secure: true}},
		{raw: "s3://b/some/prefix/?endpoint=127.0.0.1:8333&region=r1&secure=false",
			want: Location{Bucket: "b", Prefix: "some/prefix/", Endpoint: "127.0.0.1:8333", Region: "r1"}},
		{raw: "s3://b/p?secure=maybe", wantErr: true},
		{raw: "s3://b/p?endpiont=x", wantErr: true},
		{raw: "s3:///p", wantErr: true},
		{raw: "http://b/p", wantErr: true},
		{raw: "s3:b", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseURL(tc.raw)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v, error %v", tc.raw, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestOpenMissingBucket(t *testing.T) {
	loc := testLocation(t)
	loc.Bucket = "lazuli-no-such-bucket"
	_, err := Open(context.Background(), loc, Options{})
	if err == nil {
		t.Fatal("Open of a missing bucket succeeded")
	}
}

// A removed extent stays readable by its open readers, and unlisted, until
// its hold passes; then List reports it and Remove deletes its objects.
func TestRemoveHold(t *testing.T) {
	ctl := clock.NewControlled()
	e, loc := openTest(t, Options{Clock: ctl, RemoveHold: time.Hour})
	ctx := context.Background()
	data := bytes.Repeat([]byte("held "), 1000)
	info, err := e.Write(ctx, bytes.NewReader(data), -1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Open(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := e.Remove(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if ids := listed(t, e); len(ids) != 0 {
		t.Fatalf("List within the hold reported %v", ids)
	}
	// Removing again within the hold deletes nothing.
	if err := e.Remove(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	ctl.Advance(2 * time.Hour)
	got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("reader opened before Remove: %d bytes, %v", len(got), err)
	}
	ids := listed(t, e)
	if age, ok := ids[info.ID]; !ok || age < time.Hour.Seconds() {
		t.Fatalf("List after the hold = %v, want %s aged over an hour", ids, info.ID)
	}
	if err := e.Remove(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if keys := objectKeys(t, loc); len(keys) != 0 {
		t.Fatalf("objects left after the final Remove: %v", keys)
	}
	if ids := listed(t, e); len(ids) != 0 {
		t.Fatalf("List after the final Remove reported %v", ids)
	}
}

// A multipart extent is aged from its done marker, not from the upload's
// start, which S3 gives the completed object.
func TestMultipartAgedFromCompletion(t *testing.T) {
	ctl := clock.NewControlled()
	e, _ := openTest(t, Options{Clock: ctl})
	e.partSize = 1 << 20
	info, err := e.Write(context.Background(), bytes.NewReader(make([]byte, 2<<20+1)), -1)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := e.exists(context.Background(), e.key(doneDir, info.ID)); err != nil || !ok {
		t.Fatalf("done marker of a multipart extent: exists %v, %v", ok, err)
	}
	started := ctl.Now().Add(-3 * time.Hour)
	completed := ctl.Now().Add(-time.Second)
	if age, ok := e.extentAge(started, completed, time.Time{}); !ok || age > time.Minute {
		t.Fatalf("age of an extent completed a second ago after a 3 h upload = %v, %v", age, ok)
	}
}

// childPrefix names the variable that makes TestKilledUploadIsCollected's
// child process upload under that prefix until it is killed.
const childPrefix = "LAZULI_S3EXTENT_CHILD_PREFIX"

// An upload cut short by a crash (the writing process killed with SIGKILL
// between parts) leaves no visible extent; its multipart upload is an
// orphan the collector aborts once it is older than the orphan age.
func TestKilledUploadIsCollected(t *testing.T) {
	if prefix := os.Getenv(childPrefix); prefix != "" {
		uploadUntilKilled(t, prefix)
		return
	}
	loc := testLocation(t)
	client := testClient(t, loc)
	child := exec.Command(os.Args[0], "-test.run=^TestKilledUploadIsCollected$")
	child.Env = append(os.Environ(), childPrefix+"="+loc.Prefix)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer child.Process.Kill()
	up := waitForPart(t, client, loc)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	ctl := clock.NewControlled()
	e := openAt(t, loc, Options{Clock: ctl})
	id := e.idOf(dataDir, up.Key)
	if _, err := e.Open(context.Background(), id); !errors.Is(err, extent.ErrNotFound) {
		t.Fatalf("Open of the interrupted extent = %v, want ErrNotFound", err)
	}
	if keys := objectKeys(t, loc); len(keys) != 0 {
		t.Fatalf("an interrupted upload left visible objects %v", keys)
	}
	collector := &extent.Collector{Engine: e, Store: storememory.New(), Clock: ctl, OrphanAge: time.Hour}
	if n, err := collector.Sweep(context.Background()); err != nil || n != 0 {
		t.Fatalf("sweep of a young upload removed %d, %v; want 0", n, err)
	}
	ctl.Advance(2 * time.Hour)
	if n, err := collector.Sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep after the orphan age removed %d, %v; want 1", n, err)
	}
	if ups := uploads(t, client, loc); len(ups) != 0 {
		t.Fatalf("uploads left after the sweep: %v", ups)
	}
}

// uploadUntilKilled writes an extent of 1 MiB parts whose input stops
// after one and a half parts and never ends.
func uploadUntilKilled(t *testing.T, prefix string) {
	loc, err := ParseURL(os.Getenv(envURL))
	if err != nil {
		t.Fatal(err)
	}
	loc.Prefix = prefix
	e := openAt(t, loc, Options{})
	e.partSize = 1 << 20
	_, err = e.Write(context.Background(), io.MultiReader(bytes.NewReader(make([]byte, 3<<19)), blocking{}), -1)
	t.Fatalf("Write of a never-ending input returned: %v", err)
}

// blocking is an input that never yields another byte.
type blocking struct{}

func (blocking) Read([]byte) (int, error) { select {} }

// waitForPart waits until the child has uploaded a part, and returns its
// upload.
func waitForPart(t *testing.T, client *minio.Client, loc Location) minio.ObjectMultipartInfo {
	t.Helper()
	core := minio.Core{Client: client}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, up := range uploads(t, client, loc) {
			res, err := core.ListObjectParts(context.Background(), loc.Bucket, up.Key, up.UploadID, 0, 10)
			if err == nil && len(res.ObjectParts) > 0 {
				return up
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the child process uploaded no part within a minute")
	return minio.ObjectMultipartInfo{}
}

func uploads(t *testing.T, client *minio.Client, loc Location) []minio.ObjectMultipartInfo {
	t.Helper()
	var ups []minio.ObjectMultipartInfo
	for up := range client.ListIncompleteUploads(context.Background(), loc.Bucket, loc.Prefix, true) {
		if up.Err != nil {
			t.Fatal(up.Err)
		}
		ups = append(ups, up)
	}
	return ups
}

// objectKeys lists every object under loc's prefix.
func objectKeys(t *testing.T, loc Location) []string {
	t.Helper()
	var keys []string
	client := testClient(t, loc)
	for obj := range client.ListObjects(context.Background(), loc.Bucket, minio.ListObjectsOptions{Prefix: loc.Prefix, Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		keys = append(keys, obj.Key)
	}
	return keys
}

// listed returns what List reports, by id.
func listed(t *testing.T, e *Engine) map[string]float64 {
	t.Helper()
	ids := make(map[string]float64)
	err := e.List(context.Background(), func(id string, age float64) error {
		ids[id] = age
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
