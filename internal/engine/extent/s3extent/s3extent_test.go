package s3extent

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
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

// Content over one part goes up as a multipart upload and reads back
// whole and across part boundaries, including content that ends exactly at
// one; content of exactly one part goes up whole and reads back too; a
// write that fails part way leaves neither an extent nor an upload.
func TestMultipart(t *testing.T) {
	ctl := clock.NewControlled()
	e, loc := openTest(t, Options{Clock: ctl, PartSize: MinPartSize})
	ctx := context.Background()
	for _, n := range []int{MinPartSize, 2 * MinPartSize, 2*MinPartSize + 17} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7 / 5)
		}
		info, err := e.Write(ctx, bytes.NewReader(data), -1)
		if err != nil {
			t.Fatalf("Write(%d bytes): %v", n, err)
		}
		if info.Size != int64(n) || info.MD5 != md5.Sum(data) {
			t.Fatalf("Write(%d bytes) = size %d md5 %x", n, info.Size, info.MD5)
		}
		r, err := e.Open(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n > MinPartSize+50 {
			across := make([]byte, 100)
			if _, err := r.ReadAt(across, MinPartSize-50); err != nil || !bytes.Equal(across, data[MinPartSize-50:MinPartSize+50]) {
				t.Fatalf("%d bytes: read across the part boundary: %v", n, err)
			}
		}
		got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
		// S3 gives a multipart object the time its upload started; the
		// done marker holds the time it completed. Content of exactly one
		// part goes up whole, with no marker.
		if ok, err := e.exists(ctx, e.key(doneDir, info.ID)); err != nil || ok != (n > MinPartSize) {
			t.Fatalf("%d bytes: done marker exists %v, %v", n, ok, err)
		}
	}
	broken := errors.New("connection reset")
	_, err := e.Write(ctx, io.MultiReader(bytes.NewReader(make([]byte, 2*MinPartSize+1)), &failing{err: broken}), -1)
	if !errors.Is(err, broken) {
		t.Fatalf("Write failing after two parts = %v, want %v", err, broken)
	}
	if ups := uploads(t, testClient(t, loc), loc); len(ups) != 0 {
		t.Fatalf("a failed multipart write left uploads %v", ups)
	}
	if ids := listed(t, e); len(ids) != 3 {
		t.Fatalf("List reported %d extents, want the 3 written", len(ids))
	}
}

// failing is an input that fails with err.
type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

// List ages a multipart extent from its completion, not from the start of
// an upload that may have taken hours.
func TestAgeOfMultipart(t *testing.T) {
	e := &Engine{clock: clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))}
	started := e.clock.Now().Add(-3 * time.Hour)
	completed := e.clock.Now().Add(-time.Second)
	if age, ok := e.extentAge(started, completed, time.Time{}); !ok || age != time.Second {
		t.Fatalf("age of an extent completed a second ago after a 3 h upload = %v, %v; want 1s", age, ok)
	}
	if age, ok := e.extentAge(started, time.Time{}, time.Time{}); !ok || age != 3*time.Hour {
		t.Fatalf("age of a single-PUT extent = %v, %v; want 3h", age, ok)
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

// uploadUntilKilled writes an extent whose input stops after one and a
// half parts and never ends.
func uploadUntilKilled(t *testing.T, prefix string) {
	loc, err := ParseURL(os.Getenv(envURL))
	if err != nil {
		t.Fatal(err)
	}
	loc.Prefix = prefix
	e := openAt(t, loc, Options{PartSize: MinPartSize})
	_, err = e.Write(context.Background(), io.MultiReader(bytes.NewReader(make([]byte, MinPartSize*3/2)), blocking{}), -1)
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

// A read in order from the start goes on from the opening GET's body; if
// that response breaks off part way (a server or proxy ending a slow
// download), the reader fetches the rest with ranged GETs instead of
// failing the read.
func TestBrokenStreamFallsBackToRangedReads(t *testing.T) {
	e, _ := openTest(t, Options{})
	ctx := context.Background()
	data := bytes.Repeat([]byte("streamed "), 200_000)
	info, err := e.Write(ctx, bytes.NewReader(data), -1)
	if err != nil {
		t.Fatal(err)
	}
	ext, err := e.Open(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	r := ext.(*reader)
	r.stream = &breakingBody{body: r.stream, left: 100 << 10}
	before := e.Traffic().Requests[KindGet]
	got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read through a broken stream: %d bytes of %d, %v", len(got), len(data), err)
	}
	if n := e.Traffic().Requests[KindGet] - before; n != 1 {
		t.Fatalf("the rest after the break took %d GETs, want 1 ranged GET", n)
	}
}

// breakingBody yields left bytes of body, then fails as a reset
// connection does.
type breakingBody struct {
	body io.ReadCloser
	left int
}

func (b *breakingBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, errors.New("connection reset by peer")
	}
	n, err := b.body.Read(p[:min(len(p), b.left)])
	b.left -= n
	return n, err
}

func (b *breakingBody) Close() error { return b.body.Close() }

// Parallel reads of one reader, some in order from the start (from the
// opening GET's body) and some elsewhere (by ranged GETs), each get their
// own bytes, and a Close while they run ends them without a race.
func TestParallelReads(t *testing.T) {
	e, _ := openTest(t, Options{})
	ctx := context.Background()
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 31 / 7)
	}
	info, err := e.Write(ctx, bytes.NewReader(data), -1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Open(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 256 << 10
	var wg sync.WaitGroup
	for i := range len(data) / chunk {
		wg.Go(func() {
			got := make([]byte, chunk)
			off := int64(i * chunk)
			if _, err := r.ReadAt(got, off); err != nil || !bytes.Equal(got, data[off:off+chunk]) {
				t.Errorf("ReadAt(%d bytes at %d): %v", chunk, off, err)
			}
		})
	}
	wg.Wait()
	wg.Go(func() { _, _ = r.ReadAt(make([]byte, chunk), 0) })
	r.Close()
	wg.Wait()
	if _, err := r.ReadAt(make([]byte, 1), 0); !errors.Is(err, errReaderClosed) {
		t.Fatalf("ReadAt after Close = %v, want %v", err, errReaderClosed)
	}
}
