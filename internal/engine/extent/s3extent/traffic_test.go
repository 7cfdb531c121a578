package s3extent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// Each S3 operation the engine sends is counted under its own kind, read
// from the request as the S3 REST API tells operations apart.
func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		method, target string
		want           kind
	}{
		{"PUT", "/b/p/data/x", kindPut},
		{"PUT", "/b/p/data/x?partNumber=2&uploadId=u", kindPart},
		{"GET", "/b/p/data/x", kindGet},
		{"GET", "/b/?list-type=2&prefix=p%2Fdata%2F", kindList},
		{"GET", "/b/?uploads=&prefix=p%2F", kindList},
		{"GET", "/b/p/data/x?uploadId=u&part-number-marker=0", kindList},
		{"GET", "/b/?location=", kindOther},
		{"HEAD", "/b/p/data/x", kindHead},
		{"DELETE", "/b/p/data/x", kindDelete},
		{"DELETE", "/b/p/data/x?uploadId=u", kindMultipart},
		{"POST", "/b/p/data/x?uploads=", kindMultipart},
		{"POST", "/b/p/data/x?uploadId=u", kindMultipart},
		{"POST", "/b/?delete=", kindDelete},
	} {
		req, err := http.NewRequest(c.method, "http://s3.test"+c.target, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := kindOf(req); got != c.want {
			t.Errorf("%s %s: kind %s, want %s", c.method, c.target, Kinds[got], Kinds[c.want])
		}
	}
}

// The engine's Traffic counts what a small write, a multipart write, their
// reads and a removal cost on a real S3 server: one PUT for content of one
// part, create, parts and complete for more, the bytes that went up and
// came down.
func TestTraffic(t *testing.T) {
	e, _ := openTest(t, Options{PartSize: MinPartSize})
	ctx := context.Background()
	write := func(n int) (id string, d Traffic) {
		t.Helper()
		d = costOf(e, func() {
			info, err := e.Write(ctx, bytes.NewReader(make([]byte, n)), -1)
			if err != nil {
				t.Fatal(err)
			}
			id = info.ID
		})
		return id, d
	}
	small, d := write(1 << 10)
	want(t, "a 1 KiB write", d, map[string]int64{KindPut: 1}, 1<<10, 0)
	d = costOf(e, func() { readAll(t, e, small, 1<<10) })
	want(t, "a 1 KiB read", d, map[string]int64{KindGet: 1}, 0, 1<<10)
	_, d = write(MinPartSize)
	want(t, "a write of exactly one part", d, map[string]int64{KindPut: 1}, MinPartSize, 0)
	const large = 2*MinPartSize + 17
	big, d := write(large)
	// Three parts, the upload's create and complete, and the PUT of the
	// marker that says when it completed.
	want(t, "a multipart write", d, map[string]int64{KindPart: 3, KindMultipart: 2, KindPut: 1}, large, 0)
	d = costOf(e, func() { readAll(t, e, big, large) })
	want(t, "a multipart read", d, map[string]int64{KindGet: 1}, 0, large)
}

// A read costs the one GET that opens the extent and carries its size and
// removal with its content: a whole 1 MiB read is 1 GET and no HEAD, a
// read of a range past the start 1 more (ranged) GET, and an Open after
// Remove 1 GET answered ErrNotFound. Remove tags the object and writes the
// tombstone after checking for both.
func TestReadCost(t *testing.T) {
	e, _ := openTest(t, Options{})
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	info, err := e.Write(ctx, bytes.NewReader(data), -1)
	if err != nil {
		t.Fatal(err)
	}
	d := costOf(e, func() { readAll(t, e, info.ID, len(data)) })
	want(t, "a 1 MiB read", d, map[string]int64{KindGet: 1}, 0, 1<<20)
	d = costOf(e, func() {
		r, err := e.Open(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got := make([]byte, 64<<10)
		if _, err := r.ReadAt(got, 512<<10); err != nil || !bytes.Equal(got, data[512<<10:576<<10]) {
			t.Fatalf("read of 64 KiB at 512 KiB: %v", err)
		}
	})
	want(t, "a 64 KiB read at 512 KiB", d, map[string]int64{KindGet: 2}, 0, 512<<10)
	d = costOf(e, func() {
		if err := e.Remove(ctx, info.ID); err != nil {
			t.Fatal(err)
		}
	})
	want(t, "a Remove", d, map[string]int64{KindHead: 2, KindPut: 2}, 0, 0)
	d = costOf(e, func() {
		if _, err := e.Open(ctx, info.ID); !errors.Is(err, extent.ErrNotFound) {
			t.Fatalf("Open after Remove = %v, want ErrNotFound", err)
		}
	})
	want(t, "an Open after Remove", d, map[string]int64{KindGet: 1}, 0, 0)
}

// costOf is what do asked of e's S3 server: the requests of each kind it
// sent (kinds it sent none of left out) and the bytes.
func costOf(e *Engine, do func()) Traffic {
	before := e.Traffic()
	do()
	after := e.Traffic()
	d := Traffic{Requests: map[string]int64{}, BytesUp: after.BytesUp - before.BytesUp, BytesDown: after.BytesDown - before.BytesDown}
	for _, k := range Kinds {
		if n := after.Requests[k] - before.Requests[k]; n != 0 {
			d.Requests[k] = n
		}
	}
	return d
}

// readAll opens extent id and reads its n bytes in order, as a download
// does.
func readAll(t *testing.T, e *Engine, id string, n int) {
	t.Helper()
	r, err := e.Open(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size())); err != nil || len(got) != n {
		t.Fatalf("read %d bytes of %d: %v", len(got), n, err)
	}
}

// want fails t unless d's requests are exactly requests and at least up
// bytes went up and down bytes came down.
func want(t *testing.T, what string, d Traffic, requests map[string]int64, up, down int64) {
	t.Helper()
	same := len(d.Requests) == len(requests)
	for k, n := range requests {
		same = same && d.Requests[k] == n
	}
	if !same || d.BytesUp < up || d.BytesDown < down {
		t.Errorf("%s cost %v requests, %d bytes up, %d down; want %v, at least %d up and %d down",
			what, d.Requests, d.BytesUp, d.BytesDown, requests, up, down)
	}
}
