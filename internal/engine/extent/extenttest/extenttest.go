// Package extenttest is the conformance suite every extent engine passes.
// An engine's test file calls Run once with a function that opens a fresh,
// empty engine; the suite checks the contract documented on extent.Engine:
// content and MD5 round-trip, the size limit, reads that survive Remove,
// listing, cancellation and concurrent writers.
package extenttest

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// Run runs the suite. newEngine returns a fresh, empty engine; the suite
// closes it.
func Run(t *testing.T, newEngine func(t testing.TB) extent.Engine) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e extent.Engine)
	}{
		{"RoundTrip", testRoundTrip},
		{"WithoutMD5", testWithoutMD5},
		{"Limit", testLimit},
		{"OpenMissing", testOpenMissing},
		{"RemoveWhileOpen", testRemoveWhileOpen},
		{"List", testList},
		{"ReaderError", testReaderError},
		{"CancelledWrite", testCancelledWrite},
		{"ConcurrentWriters", testConcurrentWriters},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t)
			defer e.Close()
			tc.fn(t, e)
		})
	}
}

// payload returns n deterministic pseudo-random bytes.
func payload(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n+8)
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b[:n:n]
}

// write stores data and checks the Info Write returned.
func write(t testing.TB, e extent.Engine, data []byte) extent.Info {
	t.Helper()
	info, err := e.Write(context.Background(), bytes.NewReader(data), -1)
	if err != nil {
		t.Fatalf("Write(%d bytes): %v", len(data), err)
	}
	if info.ID == "" {
		t.Fatal("Write returned an empty ID")
	}
	if info.Size != int64(len(data)) || info.MD5 != md5.Sum(data) {
		t.Fatalf("Write(%d bytes) = size %d md5 %x, want %d %x",
			len(data), info.Size, info.MD5, len(data), md5.Sum(data))
	}
	return info
}

// readAll opens id and checks that it holds want.
func readAll(t testing.TB, e extent.Engine, id string, want []byte) {
	t.Helper()
	r, err := e.Open(context.Background(), id)
	if err != nil {
		t.Fatalf("Open(%s): %v", id, err)
	}
	defer r.Close()
	checkReader(t, r, want)
}

func checkReader(t testing.TB, r extent.Reader, want []byte) {
	t.Helper()
	if r.Size() != int64(len(want)) {
		t.Fatalf("Size() = %d, want %d", r.Size(), len(want))
	}
	got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes that differ from the %d written", len(got), len(want))
	}
}

func testRoundTrip(t *testing.T, e extent.Engine) {
	for _, n := range []int{0, 1, 4096, 1<<20 - 1, 1 << 20, 3<<20 + 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := payload(uint64(n), n)
			info := write(t, e, data)
			readAll(t, e, info.ID, data)
		})
	}
	t.Run("ReadAtPastEnd", func(t *testing.T) {
		info := write(t, e, []byte("abc"))
		r, err := e.Open(context.Background(), info.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		buf := make([]byte, 4)
		n, err := r.ReadAt(buf, 1)
		if n != 2 || err != io.EOF || string(buf[:n]) != "bc" {
			t.Fatalf("ReadAt(4 bytes at 1) = %d %q %v, want 2 \"bc\" EOF", n, buf[:n], err)
		}
	})
}

// testWithoutMD5 checks that a Write under extent.WithoutMD5 stores the
// content intact and reports a zero MD5, and that a plain Write reports the
// real one.
func testWithoutMD5(t *testing.T, e extent.Engine) {
	for _, n := range []int{10, 1 << 20} {
		data := payload(uint64(n)+7, n)
		info, err := e.Write(extent.WithoutMD5(context.Background()), bytes.NewReader(data), -1)
		if err != nil {
			t.Fatal(err)
		}
		if info.MD5 != ([16]byte{}) || info.Size != int64(n) {
			t.Fatalf("%d bytes without MD5: size %d md5 %x", n, info.Size, info.MD5)
		}
		readAll(t, e, info.ID, data)
		if got := write(t, e, data).MD5; got != md5.Sum(data) {
			t.Fatalf("%d bytes: md5 %x, want %x", n, got, md5.Sum(data))
		}
	}
}

func testLimit(t *testing.T, e extent.Engine) {
	tests := []struct {
		size, limit int
		wantErr     error
	}{
		{0, 0, nil},
		{1, 0, extent.ErrTooLarge},
		{100, 100, nil},
		{101, 100, extent.ErrTooLarge},
		{2<<20 + 1, 2 << 20, extent.ErrTooLarge},
		{5000, -1, nil},
	}
	accepted := 0
	for _, tc := range tests {
		if tc.wantErr == nil {
			accepted++
		}
		t.Run(fmt.Sprintf("%d/%d", tc.size, tc.limit), func(t *testing.T) {
			data := payload(7, tc.size)
			info, err := e.Write(context.Background(), bytes.NewReader(data), int64(tc.limit))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Write = %v, want %v", err, tc.wantErr)
			}
			if err == nil {
				readAll(t, e, info.ID, data)
			}
		})
	}
	if ids := listIDs(t, e); len(ids) != accepted {
		t.Fatalf("List after limit tests has %d extents, want the %d accepted writes", len(ids), accepted)
	}
}

func testOpenMissing(t *testing.T, e extent.Engine) {
	for _, id := range []string{"0123456789abcdef0123456789abcdef", "", "../x", "nothex"} {
		if _, err := e.Open(context.Background(), id); !errors.Is(err, extent.ErrNotFound) {
			t.Errorf("Open(%q) = %v, want ErrNotFound", id, err)
		}
		if err := e.Remove(context.Background(), id); err != nil {
			t.Errorf("Remove(%q) = %v, want nil", id, err)
		}
	}
}

func testRemoveWhileOpen(t *testing.T, e extent.Engine) {
	data := payload(3, 1<<20+5)
	info := write(t, e, data)
	r, err := e.Open(context.Background(), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := e.Remove(context.Background(), info.ID); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := e.Open(context.Background(), info.ID); !errors.Is(err, extent.ErrNotFound) {
		t.Fatalf("Open after Remove = %v, want ErrNotFound", err)
	}
	checkReader(t, r, data)
	if err := e.Remove(context.Background(), info.ID); err != nil {
		t.Fatalf("second Remove = %v, want nil", err)
	}
}

func listIDs(t testing.TB, e extent.Engine) map[string]float64 {
	t.Helper()
	ids := make(map[string]float64)
	err := e.List(context.Background(), func(id string, age float64) error {
		if _, dup := ids[id]; dup {
			t.Errorf("List reported %s twice", id)
		}
		ids[id] = age
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return ids
}

func testList(t *testing.T, e extent.Engine) {
	want := make(map[string]bool)
	for i := range 5 {
		want[write(t, e, payload(uint64(i), 10*i)).ID] = true
	}
	removed := write(t, e, []byte("gone")).ID
	if err := e.Remove(context.Background(), removed); err != nil {
		t.Fatal(err)
	}
	got := listIDs(t, e)
	if len(got) != len(want) {
		t.Fatalf("List reported %d extents, want %d", len(got), len(want))
	}
	for id, age := range got {
		if !want[id] {
			t.Errorf("List reported unknown extent %s", id)
		}
		if age < 0 || age > 60 {
			t.Errorf("List age of a fresh extent = %v s", age)
		}
	}
	t.Run("RemoveDuringList", func(t *testing.T) {
		err := e.List(context.Background(), func(id string, _ float64) error {
			return e.Remove(context.Background(), id)
		})
		if err != nil {
			t.Fatalf("List removing each extent: %v", err)
		}
		if ids := listIDs(t, e); len(ids) != 0 {
			t.Fatalf("%d extents left after removing all", len(ids))
		}
	})
	t.Run("StopsOnError", func(t *testing.T) {
		write(t, e, []byte("a"))
		write(t, e, []byte("b"))
		stop := errors.New("stop")
		calls := 0
		err := e.List(context.Background(), func(string, float64) error {
			calls++
			return stop
		})
		if !errors.Is(err, stop) || calls != 1 {
			t.Fatalf("List = %v after %d calls, want stop after 1", err, calls)
		}
	})
}

// failingReader yields some bytes, then an error.
type failingReader struct {
	left int
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, f.err
	}
	n := min(len(p), f.left)
	clear(p[:n])
	f.left -= n
	return n, nil
}

func testReaderError(t *testing.T, e extent.Engine) {
	broken := errors.New("connection reset")
	_, err := e.Write(context.Background(), &failingReader{left: 3 << 20, err: broken}, -1)
	if !errors.Is(err, broken) {
		t.Fatalf("Write from a failing reader = %v, want %v", err, broken)
	}
	if ids := listIDs(t, e); len(ids) != 0 {
		t.Fatalf("a failed write left %d extents", len(ids))
	}
}

// cancellingReader cancels its context after the first chunk it yields.
type cancellingReader struct {
	cancel context.CancelFunc
	reads  int
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	c.reads++
	if c.reads == 2 {
		c.cancel()
	}
	if c.reads > 1000 {
		return 0, errors.New("kept reading after cancellation")
	}
	n := min(len(p), 64<<10)
	clear(p[:n])
	return n, nil
}

func testCancelledWrite(t *testing.T, e extent.Engine) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := e.Write(ctx, &cancellingReader{cancel: cancel}, -1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Write with a cancelled context = %v, want context.Canceled", err)
	}
	if ids := listIDs(t, e); len(ids) != 0 {
		t.Fatalf("a cancelled write left %d extents", len(ids))
	}
}

func testConcurrentWriters(t *testing.T, e extent.Engine) {
	const writers, each = 8, 5
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		byID = make(map[string][]byte)
	)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				data := payload(uint64(w*100+i), 1000*(w+1)+i)
				info, err := e.Write(context.Background(), bytes.NewReader(data), -1)
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				mu.Lock()
				if _, dup := byID[info.ID]; dup {
					t.Errorf("ID %s returned twice", info.ID)
				}
				byID[info.ID] = data
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(byID) != writers*each {
		t.Fatalf("%d extents written, want %d", len(byID), writers*each)
	}
	for id, data := range byID {
		readAll(t, e, id, data)
	}
}

func testClosed(t *testing.T, e extent.Engine) {
	data := []byte("still readable")
	info := write(t, e, data)
	r, err := e.Open(context.Background(), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	checkReader(t, r, data)
	if _, err := e.Write(context.Background(), bytes.NewReader(data), -1); !errors.Is(err, extent.ErrClosed) {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
	if _, err := e.Open(context.Background(), info.ID); !errors.Is(err, extent.ErrClosed) {
		t.Fatalf("Open after Close = %v, want ErrClosed", err)
	}
}
