package s3extent

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
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
	delta := func(before Traffic, do func()) Traffic {
		t.Helper()
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
	write := func(n int) (id string, d Traffic) {
		t.Helper()
		d = delta(e.Traffic(), func() {
			info, err := e.Write(ctx, bytes.NewReader(make([]byte, n)), -1)
			if err != nil {
				t.Fatal(err)
			}
			id = info.ID
		})
		return id, d
	}
	read := func(id string, n int) Traffic {
		t.Helper()
		return delta(e.Traffic(), func() {
			r, err := e.Open(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size())); err != nil || len(got) != n {
				t.Fatalf("read %d bytes of %d: %v", len(got), n, err)
			}
		})
	}
	small, d := write(1 << 10)
	want(t, "a 1 KiB write", d, map[string]int64{KindPut: 1}, 1<<10, 0)
	d = read(small, 1<<10)
	if d.Requests[KindGet] < 1 || d.BytesDown < 1<<10 || d.BytesUp != 0 {
		t.Errorf("a 1 KiB read cost %v", d)
	}
	_, d = write(MinPartSize)
	want(t, "a write of exactly one part", d, map[string]int64{KindPut: 1}, MinPartSize, 0)
	const large = 2*MinPartSize + 17
	big, d := write(large)
	// Three parts, the upload's create and complete, and the PUT of the
	// marker that says when it completed.
	want(t, "a multipart write", d, map[string]int64{KindPart: 3, KindMultipart: 2, KindPut: 1}, large, 0)
	d = read(big, large)
	if d.Requests[KindGet] < 1 || d.BytesDown < large {
		t.Errorf("a multipart read cost %v", d)
	}
	d = delta(e.Traffic(), func() {
		if err := e.Remove(ctx, small); err != nil {
			t.Fatal(err)
		}
	})
	if d.Requests[KindPut]+d.Requests[KindDelete]+d.Requests[KindHead] == 0 {
		t.Errorf("a Remove cost no request: %v", d)
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
