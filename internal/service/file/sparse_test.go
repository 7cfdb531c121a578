package file_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// dirSize is the bytes of the regular files under dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			total += info.Size()
		}
		return err
	})
	must(t, err)
	return total
}

// TestSparseFile creates a 100 GiB file on the persistent engines, writes
// a few ranges far apart and checks that the data directory stays small,
// that the ranges read back, and that everything between reads as zeros.
func TestSparseFile(t *testing.T) {
	in, svc := start(t, lazulitest.Options{})
	sh := newShare(t, svc, "sparse")
	f := sh.NewRootDirectoryClient().NewFileClient("huge.vhd")
	const size = 100 << 30
	before := dirSize(t, in.Dir)
	_, err := f.Create(ctx, size, nil)
	must(t, err)
	offsets := []int64{0, 7 << 30, 50<<30 + 12345, size - 4096}
	for i, off := range offsets {
		_, err := f.UploadRange(ctx, off, streamOf(bytes.Repeat([]byte{byte(i + 1)}, 4096)), nil)
		must(t, err)
	}
	grown := dirSize(t, in.Dir) - before
	t.Logf("data directory grew by %d bytes for a 100 GiB file", grown)
	if grown > 16<<20 {
		t.Fatalf("a 100 GiB sparse file with 16 KiB written grew the data directory by %d bytes", grown)
	}
	props, err := f.GetProperties(ctx, nil)
	must(t, err)
	if *props.ContentLength != size {
		t.Fatalf("size %d", *props.ContentLength)
	}
	ranges, err := f.GetRangeList(ctx, nil)
	must(t, err)
	if len(ranges.Ranges) != len(offsets) {
		t.Fatalf("ranges %s", rangeString(ranges.Ranges))
	}
	for i, off := range offsets {
		if *ranges.Ranges[i].Start != off || *ranges.Ranges[i].End != off+4095 {
			t.Errorf("range %d: %d-%d", i, *ranges.Ranges[i].Start, *ranges.Ranges[i].End)
		}
	}
	// A window across a written range: zeros, the data, zeros.
	resp, err := f.DownloadStream(ctx, &file.DownloadStreamOptions{Range: file.HTTPRange{Offset: 7<<30 - 100, Count: 4296}})
	must(t, err)
	got, _ := io.ReadAll(resp.Body)
	want := append(append(make([]byte, 100), bytes.Repeat([]byte{2}, 4096)...), make([]byte, 100)...)
	if !bytes.Equal(got, want) {
		t.Fatal("sparse window reads wrong bytes")
	}
}

// TestConcurrentPutRanges writes disjoint ranges of one file from many
// goroutines: every write lands (no lost update of the range map).
func TestConcurrentPutRanges(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "concurrent")
	f := sh.NewRootDirectoryClient().NewFileClient("shared.bin")
	const writers, chunk = 32, 1024
	_, err := f.Create(ctx, writers*chunk, nil)
	must(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.UploadRange(ctx, int64(i*chunk), streamOf(bytes.Repeat([]byte{byte(i + 1)}, chunk)), nil)
			if err != nil {
				errs <- fmt.Errorf("writer %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data := download(t, f)
	for i := range writers {
		if got := data[i*chunk : (i+1)*chunk]; !bytes.Equal([]byte(got), bytes.Repeat([]byte{byte(i + 1)}, chunk)) {
			t.Fatalf("range %d lost", i)
		}
	}
	ranges, err := f.GetRangeList(ctx, nil)
	must(t, err)
	if rangeString(ranges.Ranges) != fmt.Sprintf("[0-%d]", writers*chunk-1) {
		t.Fatalf("ranges %s", rangeString(ranges.Ranges))
	}
}

// TestRestart checks that shares, directories, files with their content,
// snapshots, leases and SMB properties survive a restart.
func TestRestart(t *testing.T) {
	in, svc := start(t, lazulitest.Options{})
	sh := newShare(t, svc, "durable")
	d := sh.NewDirectoryClient("d")
	_, err := d.Create(ctx, nil)
	must(t, err)
	f := d.NewFileClient("f")
	_, err = f.Create(ctx, 11, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("persistent!")), nil)
	must(t, err)
	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = f.ClearRange(ctx, file.HTTPRange{Offset: 0, Count: 4}, nil)
	must(t, err)
	acq, err := fileLease(t, f, leaseA).Acquire(ctx, nil)
	must(t, err)
	before, err := f.GetProperties(ctx, nil)
	must(t, err)

	in.Restart(t)
	svc = serviceClient(t, in)
	sh = svc.NewShareClient("durable")
	f = sh.NewDirectoryClient("d").NewFileClient("f")
	after, err := f.GetProperties(ctx, nil)
	must(t, err)
	if *after.ETag != *before.ETag || *after.ID != *before.ID || *after.LeaseState != "leased" || *acq.LeaseID != leaseA {
		t.Fatalf("after restart: etag %s/%s id %s/%s lease %s", *after.ETag, *before.ETag, *after.ID, *before.ID, *after.LeaseState)
	}
	if got := download(t, f); got != "\x00\x00\x00\x00istent!" {
		t.Fatalf("content after restart %q", got)
	}
	old, err := sh.WithSnapshot(*snap.Snapshot)
	must(t, err)
	if got := download(t, old.NewDirectoryClient("d").NewFileClient("f")); got != "persistent!" {
		t.Fatalf("snapshot after restart %q", got)
	}
}
