package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

func fileScenarios() []scenario {
	return []scenario{
		{name: "file-write-1m", svc: auth.File, setup: fileWrite},
		{name: "file-read-1m", svc: auth.File, nullBody: mib, setup: fileRead},
	}
}

func fileCall(method, path string, q url.Values, h http.Header, body []byte) call {
	return call{svc: auth.File, method: method, path: path, query: q, header: h, body: body}
}

func withShare(ctx context.Context, e *env) (string, func(context.Context), error) {
	name := e.prefix
	q := url.Values{"restype": {"share"}}
	if _, err := e.c.do(ctx, fileCall("PUT", "/"+name, q, nil, nil)); err != nil {
		return "", nil, err
	}
	return name, func(ctx context.Context) {
		h := http.Header{"x-ms-delete-snapshots": {"include"}}
		_, _ = e.c.do(ctx, fileCall("DELETE", "/"+name, q, h, nil))
	}, nil
}

func createFile(ctx context.Context, c *client, path string, size int) error {
	h := http.Header{"x-ms-type": {"file"}, "x-ms-content-length": {fmt.Sprint(size)}}
	_, err := c.do(ctx, fileCall("PUT", path, nil, h, nil))
	return err
}

func putRange(ctx context.Context, c *client, path string, body []byte) error {
	h := http.Header{"x-ms-write": {"update"}, "x-ms-range": {fmt.Sprintf("bytes=0-%d", len(body)-1)}}
	_, err := c.do(ctx, fileCall("PUT", path, url.Values{"comp": {"range"}}, h, body))
	return err
}

func fileWrite(ctx context.Context, e *env) (op, func(context.Context), error) {
	share, cleanup, err := withShare(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	for w := 0; w < e.workers; w++ {
		if err := createFile(ctx, e.c, fmt.Sprintf("/%s/f%d", share, w), mib); err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
	}
	body := payload(mib)
	return func(ctx context.Context, w, seq int) (int64, error) {
		return mib, putRange(ctx, e.c, fmt.Sprintf("/%s/f%d", share, w), body)
	}, cleanup, nil
}

func fileRead(ctx context.Context, e *env) (op, func(context.Context), error) {
	share, cleanup, err := withShare(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	path := "/" + share + "/read"
	err = createFile(ctx, e.c, path, mib)
	if err == nil {
		err = putRange(ctx, e.c, path, payload(mib))
	}
	if err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		r, err := e.c.do(ctx, fileCall("GET", path, nil, nil, nil))
		return r.bytes, err
	}, cleanup, nil
}
