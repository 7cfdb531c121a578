package bench

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

func blobScenarios() []scenario {
	return []scenario{
		{name: "blob-put-1k", svc: auth.Blob, setup: putBlobs(kib)},
		{name: "blob-get-1k", svc: auth.Blob, nullBody: kib, setup: getBlobs(kib)},
		{name: "blob-put-1m", svc: auth.Blob, setup: putBlobs(mib)},
		{name: "blob-get-1m", svc: auth.Blob, nullBody: mib, setup: getBlobs(mib)},
		{name: "blob-upload-256m", svc: auth.Blob, workers: 1, setup: upload256},
		{name: "blob-download-256m", svc: auth.Blob, workers: 1, nullBody: 8 * mib, setup: download256},
		{name: "cond-update", svc: auth.Blob, nullBody: kib, setup: condUpdate},
		{name: "lease-cycle", svc: auth.Blob, setup: leaseCycle},
		{name: "list-blobs", svc: auth.Blob, setup: listBlobs},
	}
}

func blobCall(method, path string, q url.Values, h http.Header, body []byte) call {
	return call{svc: auth.Blob, method: method, path: path, query: q, header: h, body: body}
}

func containerCall(method, name string, extra url.Values) call {
	q := url.Values{"restype": {"container"}}
	for k, v := range extra {
		q[k] = v
	}
	return blobCall(method, "/"+name, q, nil, nil)
}

// withContainer creates a container and returns its cleanup.
func withContainer(ctx context.Context, e *env) (string, func(context.Context), error) {
	name := e.prefix
	if _, err := e.c.do(ctx, containerCall("PUT", name, nil)); err != nil {
		return "", nil, err
	}
	return name, func(ctx context.Context) { _, _ = e.c.do(ctx, containerCall("DELETE", name, nil)) }, nil
}

func putBlob(ctx context.Context, c *client, container, name string, body []byte, h http.Header) (response, error) {
	if h == nil {
		h = http.Header{}
	}
	h.Set("X-Ms-Blob-Type", "BlockBlob")
	h.Set("Content-Type", "application/octet-stream")
	return c.do(ctx, blobCall("PUT", "/"+container+"/"+name, nil, h, body))
}

// parallel runs fn(i) for i in [0, n) on k goroutines, stopping at the
// first error.
func parallel(ctx context.Context, n, k int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + 7)
	}
	return b
}

func putBlobs(size int) setupFunc {
	return func(ctx context.Context, e *env) (op, func(context.Context), error) {
		container, cleanup, err := withContainer(ctx, e)
		if err != nil {
			return nil, nil, err
		}
		body := payload(size)
		return func(ctx context.Context, w, seq int) (int64, error) {
			_, err := putBlob(ctx, e.c, container, fmt.Sprintf("w%d-%d", w, seq), body, nil)
			return int64(size), err
		}, cleanup, nil
	}
}

func getBlobs(size int) setupFunc {
	return func(ctx context.Context, e *env) (op, func(context.Context), error) {
		blobs := e.size(100, 10)
		container, cleanup, err := withContainer(ctx, e)
		if err != nil {
			return nil, nil, err
		}
		body := payload(size)
		err = parallel(ctx, blobs, 8, func(ctx context.Context, i int) error {
			_, err := putBlob(ctx, e.c, container, fmt.Sprintf("b%d", i), body, nil)
			return err
		})
		if err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
		return func(ctx context.Context, w, seq int) (int64, error) {
			r, err := e.c.do(ctx, blobCall("GET", fmt.Sprintf("/%s/b%d", container, (w*7+seq)%blobs), nil, nil, nil))
			return r.bytes, err
		}, cleanup, nil
	}
}

// blockIDs returns n equal-length base64 block ids.
func blockIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("block-%06d", i)))
	}
	return ids
}

// The 256 MiB scenarios move bigBlocks blocks, bigInFlight at a time.
const (
	bigBlocks   = 32
	bigInFlight = 8
)

// bigBlock is the block (and download range) size of the 256 MiB scenarios.
func bigBlock(e *env) int { return e.size(8*mib, 256*kib) }

// uploadBlocks uploads count copies of block as separate blocks, inFlight
// at a time, then commits them.
func uploadBlocks(ctx context.Context, c *client, container, name string, block []byte, count, inFlight int) error {
	ids := blockIDs(count)
	err := parallel(ctx, count, inFlight, func(ctx context.Context, i int) error {
		q := url.Values{"comp": {"block"}, "blockid": {ids[i]}}
		_, err := c.do(ctx, blobCall("PUT", "/"+container+"/"+name, q, nil, block))
		return err
	})
	if err != nil {
		return err
	}
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="utf-8"?><BlockList>`)
	for _, id := range ids {
		sb.WriteString("<Latest>" + id + "</Latest>")
	}
	sb.WriteString("</BlockList>")
	_, err = c.do(ctx, blobCall("PUT", "/"+container+"/"+name, url.Values{"comp": {"blocklist"}}, nil, []byte(sb.String())))
	return err
}

func upload256(ctx context.Context, e *env) (op, func(context.Context), error) {
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	block := payload(bigBlock(e))
	return func(ctx context.Context, w, seq int) (int64, error) {
		err := uploadBlocks(ctx, e.c, container, fmt.Sprintf("big-%d-%d", w, seq), block, bigBlocks, bigInFlight)
		return int64(bigBlocks * len(block)), err
	}, cleanup, nil
}

func download256(ctx context.Context, e *env) (op, func(context.Context), error) {
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	block := bigBlock(e)
	if err := uploadBlocks(ctx, e.c, container, "big", payload(block), bigBlocks, bigInFlight); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		var moved atomic.Int64
		err := parallel(ctx, bigBlocks, bigInFlight, func(ctx context.Context, i int) error {
			h := http.Header{"x-ms-range": {fmt.Sprintf("bytes=%d-%d", i*block, (i+1)*block-1)}}
			r, err := e.c.do(ctx, blobCall("GET", "/"+container+"/big", nil, h, nil))
			moved.Add(r.bytes)
			return err
		})
		return moved.Load(), err
	}, cleanup, nil
}

func condUpdate(ctx context.Context, e *env) (op, func(context.Context), error) {
	const hot = 100
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	body := payload(kib)
	if err := parallel(ctx, hot, 8, func(ctx context.Context, i int) error {
		_, err := putBlob(ctx, e.c, container, fmt.Sprintf("hot%d", i), body, nil)
		return err
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		name := fmt.Sprintf("hot%d", (w*13+seq)%hot)
		r, err := e.c.do(ctx, blobCall("GET", "/"+container+"/"+name, nil, nil, nil))
		if err != nil {
			return 0, err
		}
		etag := r.header.Get("ETag")
		_, err = putBlob(ctx, e.c, container, name, body, http.Header{"If-Match": {etag}})
		return int64(len(body)), err
	}, cleanup, nil
}

func leaseCycle(ctx context.Context, e *env) (op, func(context.Context), error) {
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, e.workers, 8, func(ctx context.Context, i int) error {
		_, err := putBlob(ctx, e.c, container, fmt.Sprintf("l%d", i), payload(16), nil)
		return err
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	lease := func(ctx context.Context, path, action string, h http.Header) (response, error) {
		h.Set("X-Ms-Lease-Action", action)
		return e.c.do(ctx, blobCall("PUT", path, url.Values{"comp": {"lease"}}, h, nil))
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		path := fmt.Sprintf("/%s/l%d", container, w)
		// A fixed proposed id per worker: a cycle cut short by the end of
		// the warm-up leaves a lease that this worker's next acquire
		// (same id) simply takes over.
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", w)
		h := http.Header{"x-ms-lease-duration": {"15"}, "x-ms-proposed-lease-id": {id}}
		if _, err := lease(ctx, path, "acquire", h); err != nil {
			return 0, err
		}
		if _, err := lease(ctx, path, "renew", http.Header{"x-ms-lease-id": {id}}); err != nil {
			return 0, err
		}
		_, err := lease(ctx, path, "release", http.Header{"x-ms-lease-id": {id}})
		return 0, err
	}, cleanup, nil
}

func listBlobs(ctx context.Context, e *env) (op, func(context.Context), error) {
	n := e.opts.ListBlobs
	if n <= 0 {
		n = 100000
	}
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, n, 32, func(ctx context.Context, i int) error {
		_, err := putBlob(ctx, e.c, container, fmt.Sprintf("item-%07d", i), nil, nil)
		return err
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	markers := make([]string, e.workers)
	return func(ctx context.Context, w, seq int) (int64, error) {
		q := url.Values{"comp": {"list"}, "maxresults": {"5000"}}
		if markers[w] != "" {
			q.Set("marker", markers[w])
		}
		r, err := e.c.do(ctx, call{svc: auth.Blob, method: "GET", path: "/" + container,
			query: withRestype(q), sink: keepBody})
		if err != nil {
			return 0, err
		}
		markers[w] = xmlElement(r.body, "NextMarker")
		if markers[w] == "" && len(r.body) < 100 {
			return 0, errors.New("list-blobs: empty listing")
		}
		return r.bytes, nil
	}, cleanup, nil
}

func withRestype(q url.Values) url.Values {
	q.Set("restype", "container")
	return q
}

// xmlElement returns the text of the first <name>…</name> in body: enough for
// the few fields the benchmark reads, without decoding whole documents.
func xmlElement(body []byte, name string) string {
	s := string(body)
	open, closing := "<"+name+">", "</"+name+">"
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	j := strings.Index(s, closing)
	if j < 0 {
		return ""
	}
	return s[:j]
}
