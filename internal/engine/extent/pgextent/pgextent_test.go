package pgextent

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func mustWrite(t testing.TB, e *Engine, data []byte) extent.Info {
	t.Helper()
	info, err := e.Write(context.Background(), bytes.NewReader(data), -1)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if info.Size != int64(len(data)) || info.MD5 != md5.Sum(data) {
		t.Fatalf("Write = size %d md5 %x, want %d %x", info.Size, info.MD5, len(data), md5.Sum(data))
	}
	return info
}

func mustOpen(t testing.TB, e *Engine, id string) extent.Reader {
	t.Helper()
	r, err := e.Open(context.Background(), id)
	if err != nil {
		t.Fatalf("Open(%s): %v", id, err)
	}
	return r
}

// db connects to the test database with schema as its search path, for
// looking at the engine's rows.
func db(t testing.TB, schema string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	return conn
}

// count returns the single integer sql yields.
func count(t testing.TB, conn *pgx.Conn, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// exec runs sql, which must succeed.
func exec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Every range of a 1000-byte extent in 64-byte chunks reads back exactly,
// whether it lies within a chunk, starts or ends on a boundary, spans many
// chunks or runs past the end.
func TestReadAtAcrossChunks(t *testing.T) {
	const chunk, size = 64, 1000
	e, schema := openTest(t, chunk)
	data := randomBytes(1, size)
	info := mustWrite(t, e, data)
	rows := count(t, db(t, schema), "SELECT count(*) FROM extent_chunk WHERE id = $1 AND length(data) <= $2", info.ID, chunk)
	if rows != (size+chunk-1)/chunk {
		t.Fatalf("%d chunk rows of at most %d bytes, want %d", rows, chunk, (size+chunk-1)/chunk)
	}
	r := mustOpen(t, e, info.ID)
	defer r.Close()
	offsets := []int{0, 1, 63, 64, 65, 127, 128, 500, 959, 960, 999}
	lengths := []int{1, 2, 63, 64, 65, 129, 300, 1000}
	for _, off := range offsets {
		for _, n := range lengths {
			p := make([]byte, n)
			got, err := r.ReadAt(p, int64(off))
			want := data[off:min(off+n, size)]
			if got != len(want) || !bytes.Equal(p[:got], want) {
				t.Fatalf("ReadAt(%d bytes at %d) = %d bytes, %v; content differs: %v", n, off, got, err, !bytes.Equal(p[:got], want))
			}
			if wantEOF := off+n > size; (err == io.EOF) != wantEOF || (!wantEOF && err != nil) {
				t.Fatalf("ReadAt(%d bytes at %d) error %v, want EOF %v", n, off, err, wantEOF)
			}
		}
	}
	if n, err := r.ReadAt(make([]byte, 1), size); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt at the end = %d, %v", n, err)
	}
	if _, err := r.ReadAt(make([]byte, 1), -1); err == nil {
		t.Fatal("ReadAt at a negative offset succeeded")
	}
}

func TestDefaultChunkSize(t *testing.T) {
	e, schema := openTest(t, 0)
	data := randomBytes(2, 2*MaxChunkSize+1)
	info := mustWrite(t, e, data)
	conn := db(t, schema)
	rows := count(t, conn, "SELECT count(*) FROM extent_chunk WHERE id = $1", info.ID)
	longest := count(t, conn, "SELECT max(length(data)) FROM extent_chunk WHERE id = $1", info.ID)
	if rows != 3 || longest != MaxChunkSize {
		t.Fatalf("%d chunk rows, longest %d; want 3 of at most %d", rows, longest, MaxChunkSize)
	}
	r := mustOpen(t, e, info.ID)
	defer r.Close()
	got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
}

// watchingReader yields size bytes and, each time it is about to hand out
// chunk k, checks that chunks before k-1 are already committed: Write
// streams rather than buffering the whole input.
type watchingReader struct {
	t           *testing.T
	conn        *pgx.Conn
	chunk, size int
	pos         int
	checked     int
}

func (w *watchingReader) Read(p []byte) (int, error) {
	if w.pos == w.size {
		return 0, io.EOF
	}
	if k := w.pos / w.chunk; k >= 2 && k > w.checked {
		w.checked = k
		if n := count(w.t, w.conn, "SELECT count(*) FROM extent_chunk"); n < k-1 {
			w.t.Errorf("reading chunk %d with only %d chunks committed", k, n)
		}
	}
	n := min(len(p), w.size-w.pos, 100)
	clear(p[:n])
	w.pos += n
	return n, nil
}

func TestWriteStreams(t *testing.T) {
	const chunk = 1000
	e, schema := openTest(t, chunk)
	w := &watchingReader{t: t, conn: db(t, schema), chunk: chunk, size: 20 * chunk}
	info, err := e.Write(context.Background(), w, -1)
	if err != nil || info.Size != int64(w.size) {
		t.Fatalf("Write = %+v, %v", info, err)
	}
	if w.checked != 19 {
		t.Fatalf("checked progress %d times, want 19", w.checked)
	}
}

func TestRemoveWaitsForLastReader(t *testing.T) {
	e, schema := openTest(t, 16)
	data := randomBytes(3, 100)
	info := mustWrite(t, e, data)
	r1, r2 := mustOpen(t, e, info.ID), mustOpen(t, e, info.ID)
	if err := e.Remove(context.Background(), info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Open(context.Background(), info.ID); !errors.Is(err, extent.ErrNotFound) {
		t.Fatalf("Open of a removed extent: %v", err)
	}
	r1.Close()
	p := make([]byte, 100)
	if n, err := r2.ReadAt(p, 0); n != 100 || err != nil || !bytes.Equal(p, data) {
		t.Fatalf("second reader after the first closed: %d, %v", n, err)
	}
	r2.Close()
	conn := db(t, schema)
	if n := count(t, conn, "SELECT count(*) FROM extent_chunk") + count(t, conn, "SELECT count(*) FROM extent"); n != 0 {
		t.Fatalf("%d rows left after the last reader of a removed extent closed", n)
	}
	if _, err := r2.ReadAt(p, 0); !errors.Is(err, errReaderClosed) {
		t.Fatalf("ReadAt after Close: %v", err)
	}
}

// A reader registered by a process that died long ago does not keep a
// removed extent forever.
func TestStaleReaderIgnored(t *testing.T) {
	e, schema := openTest(t, 0)
	info := mustWrite(t, e, []byte("abc"))
	r := mustOpen(t, e, info.ID)
	defer r.Close()
	conn := db(t, schema)
	exec(t, conn, "UPDATE extent_reader SET opened = now() - interval '25 hours'")
	if err := e.Remove(context.Background(), info.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, conn, "SELECT count(*) FROM extent"); n != 0 {
		t.Fatalf("extent kept for a stale reader")
	}
}

func TestListAgeAndProgress(t *testing.T) {
	e, schema := openTest(t, 0)
	info := mustWrite(t, e, []byte("old"))
	conn := db(t, schema)
	exec(t, conn, "UPDATE extent SET written = now() - interval '1 hour'")
	// A write cut short by a crash: an extent row with no size yet.
	exec(t, conn, "INSERT INTO extent (id, chunk) VALUES ('crashed', 1)")
	ages := map[string]float64{}
	err := e.List(context.Background(), func(id string, age float64) error { ages[id] = age; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(ages) != 2 || ages[info.ID] < 3599 || ages[info.ID] > 3660 || ages["crashed"] > 60 {
		t.Fatalf("List = %v, want %s about 3600 s old and the crashed write fresh", ages, info.ID)
	}
	if _, err := e.Open(context.Background(), "crashed"); !errors.Is(err, extent.ErrNotFound) {
		t.Fatalf("Open of an unfinished extent: %v", err)
	}
}

// List pages through more extents than one query returns.
func TestListPages(t *testing.T) {
	e, schema := openTest(t, 0)
	const n = listPage + 5
	exec(t, db(t, schema), "INSERT INTO extent (id, chunk) SELECT 'x' || g, 1 FROM generate_series(1, $1) g", n)
	seen := 0
	if err := e.List(context.Background(), func(string, float64) error { seen++; return nil }); err != nil || seen != n {
		t.Fatalf("List saw %d extents (%v), want %d", seen, err, n)
	}
}

// removingReader removes its extent halfway through the input, as a sweep
// mistaking a stalled upload for an orphan would.
type removingReader struct {
	e    *Engine
	left int
}

func (r *removingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if r.left == 50 {
		var ids []string
		r.e.List(context.Background(), func(id string, _ float64) error { ids = append(ids, id); return nil })
		for _, id := range ids {
			r.e.Remove(context.Background(), id)
		}
	}
	n := min(len(p), 10, r.left)
	r.left -= n
	return n, nil
}

func TestRemovedWhileWriting(t *testing.T) {
	e, schema := openTest(t, 10)
	_, err := e.Write(context.Background(), &removingReader{e: e, left: 100}, -1)
	if !errors.Is(err, errRemovedWhileWriting) {
		t.Fatalf("Write = %v, want errRemovedWhileWriting", err)
	}
	if n := count(t, db(t, schema), "SELECT count(*) FROM extent_chunk"); n != 0 {
		t.Fatalf("%d chunk rows left", n)
	}
}

func TestParallelReadAt(t *testing.T) {
	e, _ := openTest(t, 100)
	data := randomBytes(4, 5000)
	r := mustOpen(t, e, mustWrite(t, e, data).ID)
	defer r.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for range 20 {
				off, n := rng.IntN(5000), 1+rng.IntN(400)
				p := make([]byte, n)
				got, err := r.ReadAt(p, int64(off))
				if (err != nil && err != io.EOF) || !bytes.Equal(p[:got], data[off:min(off+n, 5000)]) {
					t.Errorf("ReadAt(%d at %d) = %d, %v or wrong bytes", n, off, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Two nodes share one schema: each reads what the other wrote, and an
// extent written with another chunk size reads back correctly.
func TestTwoNodes(t *testing.T) {
	a, schema := openTest(t, 7)
	b := openAt(t, schema, 1000)
	data := randomBytes(5, 3000)
	for _, pair := range [][2]*Engine{{a, b}, {b, a}} {
		info := mustWrite(t, pair[0], data)
		r := mustOpen(t, pair[1], info.ID)
		got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("cross-node read: %d bytes, %v", len(got), err)
		}
	}
}

func TestOpenRejectsBadChunkSize(t *testing.T) {
	for _, size := range []int{-1, MaxChunkSize + 1} {
		if e, err := Open(context.Background(), pgtest.URL(t), Options{ChunkSize: size}); err == nil {
			e.Close()
			t.Fatalf("Open accepted chunk size %d", size)
		}
	}
}
