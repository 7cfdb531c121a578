package dump_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	extentmemory "github.com/lazuli-storage/lazuli/internal/engine/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/tool/dump"
)

// engines is a store and the extent engine that goes with it.
type engines struct {
	st  store.Store
	ext extent.Engine
}

func memoryEngines(t testing.TB) engines {
	t.Helper()
	e := engines{st: memory.New(), ext: extentmemory.New()}
	t.Cleanup(func() { e.ext.Close(); e.st.Close() })
	return e
}

func writeExtent(t testing.TB, ext extent.Engine, data []byte) string {
	t.Helper()
	info, err := ext.Write(context.Background(), bytes.NewReader(data), -1)
	if err != nil {
		t.Fatal(err)
	}
	return info.ID
}

func update(t testing.TB, st store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := st.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// fixture fills e directly through the store and extent engine, the way
// the services do: records that name extents by ID in their keys and
// values, the reference counts of those extents, an engine record in
// SpaceMeta, a freed extent waiting for collection and an orphan.
type fixture struct {
	contents map[string][]byte // source extent ID -> bytes
	blobKey  []byte
}

func fill(t testing.TB, e engines) fixture { return fillSized(t, e, 300<<10) }

// fillSized is fill with a big extent of the given size.
func fillSized(t testing.TB, e engines, bigSize int) fixture {
	t.Helper()
	big := make([]byte, bigSize)
	rand.Read(big)
	f := fixture{contents: map[string][]byte{}}
	var ids []string
	for _, data := range [][]byte{[]byte("alpha"), {}, big, []byte("delta")} {
		id := writeExtent(t, e.ext, data)
		f.contents[id] = data
		ids = append(ids, id)
	}
	freed := writeExtent(t, e.ext, []byte("freed"))
	writeExtent(t, e.ext, []byte("orphan"))
	f.blobKey = store.NewKey(store.SpaceBlob).Str("acct").Str("c").Str("b")
	update(t, e.st, func(tx store.Tx) error {
		puts := []struct{ key, value []byte }{
			{[]byte{byte(store.SpaceMeta), 'x'}, []byte("engine's own")},
			{store.NewKey(store.SpaceContainer).Str("acct").Str("c"), []byte("container")},
			// Two references side by side, as a segment list may hold them.
			{f.blobKey, []byte("\x20" + ids[0] + ids[2] + "\x20" + ids[0])},
			{store.NewKey(store.SpaceBlock).Str("acct").Str("c").Str("b").Str(ids[1]), []byte(ids[3] + "tail")},
			// Hexadecimal that names no extent stays as it is.
			{store.NewKey(store.SpaceEntity).Str("acct").Str("t"), []byte(strings.Repeat("ab", 40))},
			{[]byte{0xF0, 0x00}, []byte("a space no one uses yet")},
		}
		for _, p := range puts {
			if err := tx.Put(p.key, p.value); err != nil {
				return err
			}
		}
		for _, id := range append(ids, ids[0], ids[0], freed) {
			if err := extent.Ref(tx, id); err != nil {
				return err
			}
		}
		return extent.Unref(tx, freed, time.Now())
	})
	return f
}

func dumpBytes(t testing.TB, e engines) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := dump.Dump(context.Background(), e.st, e.ext, &buf); err != nil {
		t.Fatalf("dump: %v", err)
	}
	return buf.Bytes()
}

func load(t testing.TB, e engines, stream []byte) dump.Stats {
	t.Helper()
	stats, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream), dump.LoadOptions{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return stats
}

// records returns every record of e in key order.
func records(t testing.TB, e engines) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := e.st.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan([]byte{0}, nil, store.ScanOptions{}, func(k, v []byte) bool {
			out[string(k)] = string(v)
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRoundTripRewritesExtentIDs(t *testing.T) {
	src, dst := memoryEngines(t), memoryEngines(t)
	f := fill(t, src)
	stream := dumpBytes(t, src)
	stats := load(t, dst, stream)
	if stats.Extents != 4 || stats.ExtentBytes != int64(len("alpha")+300<<10+len("delta")) || stats.Records != 9 {
		t.Fatalf("load stats %+v: want 4 extents of %d bytes and 9 records", stats, 5+300<<10+5)
	}
	if again := dumpBytes(t, dst); !bytes.Equal(again, stream) {
		t.Fatal("dumping the loaded store does not reproduce the stream")
	}

	got := records(t, dst)
	if _, ok := got[string([]byte{byte(store.SpaceMeta), 'x'})]; ok {
		t.Error("a SpaceMeta record was copied")
	}
	for k := range got {
		if k[0] == byte(store.SpaceExtentGC) {
			t.Errorf("collection record %x was copied", k)
		}
	}
	// The blob record names the loaded copies of its extents, which hold
	// the same bytes as the originals; its reference counts came along.
	blob := got[string(f.blobKey)]
	if len(blob) != 1+64+1+32 {
		t.Fatalf("blob record %q changed length", blob)
	}
	srcBlob := records(t, src)[string(f.blobKey)]
	for _, at := range []int{1, 33, 66} {
		oldID, newID := srcBlob[at:at+32], blob[at:at+32]
		if oldID == newID {
			t.Errorf("reference at %d still names the source extent %s", at, oldID)
		}
		if content := readExtent(t, dst.ext, newID); !bytes.Equal(content, f.contents[oldID]) {
			t.Errorf("extent %s holds %d bytes, want the %d of %s", newID, len(content), len(f.contents[oldID]), oldID)
		}
	}
	if blob[1:33] != blob[66:98] {
		t.Error("two references to one extent now name different extents")
	}
	err := dst.st.View(context.Background(), func(tx store.Tx) error {
		n, err := extent.RefCount(tx, blob[1:33])
		if err == nil && n != 3 {
			t.Errorf("reference count %d, want 3", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	entity := got[string(store.NewKey(store.SpaceEntity).Str("acct").Str("t"))]
	if entity != strings.Repeat("ab", 40) {
		t.Errorf("hexadecimal data that names no extent was changed to %q", entity)
	}
}

func readExtent(t testing.TB, ext extent.Engine, id string) []byte {
	t.Helper()
	r, err := ext.Open(context.Background(), id)
	if err != nil {
		t.Fatalf("open extent %s: %v", id, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEmptyStoreRoundTrip(t *testing.T) {
	src, dst := memoryEngines(t), memoryEngines(t)
	stream := dumpBytes(t, src)
	if stats := load(t, dst, stream); stats != (dump.Stats{}) {
		t.Fatalf("stats %+v for an empty store", stats)
	}
	if !bytes.Equal(dumpBytes(t, dst), stream) {
		t.Fatal("empty dumps differ")
	}
}

func TestLoadRefusesNonEmptyTarget(t *testing.T) {
	stream := dumpBytes(t, func() engines { e := memoryEngines(t); fill(t, e); return e }())
	cases := []struct {
		name    string
		prepare func(engines)
		refused bool
	}{
		{"empty", func(engines) {}, false},
		{"engine records only", func(e engines) {
			update(t, e.st, func(tx store.Tx) error { return tx.Put([]byte{byte(store.SpaceMeta), 1}, []byte("v")) })
		}, false},
		{"a record", func(e engines) {
			update(t, e.st, func(tx store.Tx) error { return tx.Put(store.NewKey(store.SpaceQueue).Str("a").Str("q"), nil) })
		}, true},
		{"a record below every space", func(e engines) {
			update(t, e.st, func(tx store.Tx) error { return tx.Put([]byte{0}, nil) })
		}, true},
		{"an extent", func(e engines) { writeExtent(t, e.ext, []byte("x")) }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := memoryEngines(t)
			c.prepare(e)
			before := records(t, e)
			_, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream), dump.LoadOptions{})
			if !c.refused {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				return
			}
			if !errors.Is(err, dump.ErrNotEmpty) {
				t.Fatalf("load = %v, want ErrNotEmpty", err)
			}
			if after := records(t, e); len(after) != len(before) {
				t.Fatalf("a refused load wrote %d records", len(after)-len(before))
			}
			if _, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream), dump.LoadOptions{Force: true}); err != nil {
				t.Fatalf("forced load: %v", err)
			}
		})
	}
}

// Every truncation and every flipped byte of a stream is refused as
// corrupt, never loaded as if it were whole.
func TestCorruptStreamsAreRefused(t *testing.T) {
	src := memoryEngines(t)
	fillSized(t, src, 100)
	stream := dumpBytes(t, src)
	for n := range stream {
		e := memoryEngines(t)
		_, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream[:n]), dump.LoadOptions{})
		if !errors.Is(err, dump.ErrCorrupt) {
			t.Fatalf("stream cut at %d of %d: %v, want ErrCorrupt", n, len(stream), err)
		}
	}
	for n := range stream {
		bad := bytes.Clone(stream)
		bad[n] ^= 0x5a
		e := memoryEngines(t)
		_, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(bad), dump.LoadOptions{})
		if !errors.Is(err, dump.ErrCorrupt) {
			t.Fatalf("stream with byte %d flipped: %v, want ErrCorrupt", n, err)
		}
	}
	e := memoryEngines(t)
	_, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(append(bytes.Clone(stream), 'E')), dump.LoadOptions{})
	if !errors.Is(err, dump.ErrCorrupt) {
		t.Fatalf("stream with a trailing byte: %v, want ErrCorrupt", err)
	}
}

func TestDumpRefusesForeignExtentIDs(t *testing.T) {
	e := memoryEngines(t)
	update(t, e.st, func(tx store.Tx) error { return extent.Ref(tx, "not-an-engine-id") })
	_, err := dump.Dump(context.Background(), e.st, e.ext, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not-an-engine-id") {
		t.Fatalf("dump = %v, want a refusal naming the ID", err)
	}
}

func TestDumpReportsCollectedExtent(t *testing.T) {
	e := memoryEngines(t)
	id := writeExtent(t, e.ext, []byte("gone"))
	update(t, e.st, func(tx store.Tx) error { return extent.Ref(tx, id) })
	if err := e.ext.Remove(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	_, err := dump.Dump(context.Background(), e.st, e.ext, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "grace period") {
		t.Fatalf("dump = %v, want the collected-extent explanation", err)
	}
}

func TestLoadRefusesOtherFormats(t *testing.T) {
	for name, stream := range map[string]string{
		"empty":       "",
		"not a dump":  "PK\x03\x04 a zip file",
		"json":        `{"records": []}`,
		"header only": "H",
	} {
		e := memoryEngines(t)
		if _, err := dump.Load(context.Background(), e.st, e.ext, strings.NewReader(stream), dump.LoadOptions{}); !errors.Is(err, dump.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

func TestDumpStopsWhenCancelled(t *testing.T) {
	e := memoryEngines(t)
	fill(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := dump.Dump(ctx, e.st, e.ext, io.Discard); err == nil {
		t.Fatal("a cancelled dump succeeded")
	}
	stream := dumpBytes(t, e)
	if _, err := dump.Load(ctx, memoryEngines(t).st, memoryEngines(t).ext, bytes.NewReader(stream), dump.LoadOptions{}); err == nil {
		t.Fatal("a cancelled load succeeded")
	}
}

// FuzzLoad feeds arbitrary streams to Load: it must refuse or load them,
// never panic, and a store it loaded must dump and reload to the same
// stream.
func FuzzLoad(f *testing.F) {
	// Small extents keep the seeds short: the fuzzer mutates and minimizes
	// whole streams.
	src := memoryEngines(f)
	fillSized(f, src, 64)
	f.Add(dumpBytes(f, src))
	f.Add(dumpBytes(f, memoryEngines(f)))
	small := memoryEngines(f)
	id := writeExtent(f, small.ext, []byte("x"))
	update(f, small.st, func(tx store.Tx) error {
		if err := tx.Put([]byte{0x11, 'k'}, []byte(id)); err != nil {
			return err
		}
		return extent.Ref(tx, id)
	})
	f.Add(dumpBytes(f, small))
	f.Fuzz(func(t *testing.T, stream []byte) {
		e := memoryEngines(t)
		if _, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream), dump.LoadOptions{}); err != nil {
			return
		}
		var first bytes.Buffer
		if _, err := dump.Dump(context.Background(), e.st, e.ext, &first); err != nil {
			return // e.g. a reference count under a key that is no extent ID
		}
		again := memoryEngines(t)
		load(t, again, first.Bytes())
		if !bytes.Equal(dumpBytes(t, again), first.Bytes()) {
			t.Fatal("a loaded stream does not dump to a stable stream")
		}
	})
}
