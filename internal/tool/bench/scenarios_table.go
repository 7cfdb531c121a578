package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

func tableScenarios() []scenario {
	return []scenario{
		{name: "table-insert", svc: auth.Table, setup: tableInsert},
		{name: "table-point-get", svc: auth.Table, nullBody: 200, setup: tablePointGet},
		{name: "table-merge-ifmatch", svc: auth.Table, setup: tableMergeIfMatch},
		{name: "table-query", svc: auth.Table, nullBody: 20000, setup: tableQuery},
		{name: "table-batch-100", svc: auth.Table, setup: tableBatch},
	}
}

func tableCall(method, path string, q url.Values, h http.Header, body []byte) call {
	if h == nil {
		h = http.Header{}
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	return call{svc: auth.Table, method: method, path: path, query: q, header: h, body: body}
}

func withTable(ctx context.Context, e *env) (string, func(context.Context), error) {
	name := "t" + e.prefix
	body, _ := json.Marshal(map[string]string{"TableName": name})
	h := http.Header{"Prefer": {"return-no-content"}}
	if _, err := e.c.do(ctx, tableCall("POST", "/Tables", nil, h, body)); err != nil {
		return "", nil, err
	}
	return name, func(ctx context.Context) {
		_, _ = e.c.do(ctx, tableCall("DELETE", "/Tables('"+name+"')", nil, nil, nil))
	}, nil
}

func entityJSON(pk, rk string, group int) []byte {
	b, _ := json.Marshal(map[string]any{"PartitionKey": pk, "RowKey": rk, "Name": "bench entity " + rk,
		"Group": group, "Score": 12.5, "Active": true})
	return b
}

func insertEntity(ctx context.Context, c *client, table, pk, rk string, group int) error {
	h := http.Header{"Prefer": {"return-no-content"}}
	_, err := c.do(ctx, tableCall("POST", "/"+table, nil, h, entityJSON(pk, rk, group)))
	return err
}

func entityPath(table, pk, rk string) string {
	return fmt.Sprintf("/%s(PartitionKey='%s',RowKey='%s')", table, pk, rk)
}

func tableInsert(ctx context.Context, e *env) (op, func(context.Context), error) {
	table, cleanup, err := withTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return 0, insertEntity(ctx, e.c, table, fmt.Sprintf("p%d", w), fmt.Sprintf("r%08d", seq), seq%100)
	}, cleanup, nil
}

func tablePointGet(ctx context.Context, e *env) (op, func(context.Context), error) {
	rows := e.size(1000, 100)
	table, cleanup, err := withTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, rows, 16, func(ctx context.Context, i int) error {
		return insertEntity(ctx, e.c, table, "p", fmt.Sprintf("r%05d", i), i%100)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		r, err := e.c.do(ctx, tableCall("GET", entityPath(table, "p", fmt.Sprintf("r%05d", (w*37+seq)%rows)), nil, nil, nil))
		return r.bytes, err
	}, cleanup, nil
}

// tableMergeIfMatch merges into one entity per worker, each time with the
// ETag the previous write returned.
func tableMergeIfMatch(ctx context.Context, e *env) (op, func(context.Context), error) {
	table, cleanup, err := withTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	etags := make([]string, e.workers)
	for w := range etags {
		if err := insertEntity(ctx, e.c, table, "m", fmt.Sprintf("w%d", w), w); err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
		r, err := e.c.do(ctx, tableCall("GET", entityPath(table, "m", fmt.Sprintf("w%d", w)), nil, nil, nil))
		if err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
		etags[w] = r.header.Get("ETag")
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		body, _ := json.Marshal(map[string]any{"Counter": seq})
		h := http.Header{"If-Match": {etags[w]}}
		path := entityPath(table, "m", fmt.Sprintf("w%d", w))
		r, err := e.c.do(ctx, tableCall("MERGE", path, nil, h, body))
		if err == nil {
			etags[w] = r.header.Get("ETag")
			return 0, nil
		}
		// A merge cut short by the end of the warm-up may have landed
		// without its new ETag reaching us: re-read so the next one can
		// succeed (this failure still counts).
		if cur, gerr := e.c.do(ctx, tableCall("GET", path, nil, nil, nil)); gerr == nil {
			etags[w] = cur.header.Get("ETag")
		}
		return 0, err
	}, cleanup, nil
}

// tableQuery filters the entities of one partition (Options.TableRows,
// 20,000 by default) on a non-key property that matches 1% of them,
// following continuations.
func tableQuery(ctx context.Context, e *env) (op, func(context.Context), error) {
	rows := tableRows(e)
	table, cleanup, err := withTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, rows/100, 8, func(ctx context.Context, b int) error {
		return submitBatch(ctx, e.c, table, "q", b*100, 100)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return followQuery(ctx, e.c, table, url.Values{"$filter": {"Group eq 42"}})
	}, cleanup, nil
}

func tableBatch(ctx context.Context, e *env) (op, func(context.Context), error) {
	table, cleanup, err := withTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return 0, submitBatch(ctx, e.c, table, fmt.Sprintf("b%d-%d", w, seq), 0, 100)
	}, cleanup, nil
}

// submitBatch inserts n entities of partition pk (row numbers from first)
// in one entity group transaction.
func submitBatch(ctx context.Context, c *client, table, pk string, first, n int) error {
	batch, changeset := "batch_"+randomHex(8), "changeset_"+randomHex(8)
	base := c.target.endpoint(auth.Table)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--%s\r\nContent-Type: multipart/mixed; boundary=%s\r\n\r\n", batch, changeset)
	for i := first; i < first+n; i++ {
		body := entityJSON(pk, fmt.Sprintf("r%05d", i), i%100)
		fmt.Fprintf(&sb, "--%s\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n", changeset)
		fmt.Fprintf(&sb, "POST %s/%s HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\nDataServiceVersion: 3.0\r\nContent-Length: %d\r\n\r\n%s\r\n",
			base, table, len(body), body)
	}
	fmt.Fprintf(&sb, "--%s--\r\n--%s--\r\n", changeset, batch)
	h := http.Header{"Content-Type": {"multipart/mixed; boundary=" + batch}}
	r, err := c.do(ctx, call{svc: auth.Table, method: "POST", path: "/$batch", header: h, body: []byte(sb.String()), sink: keepBody})
	if err != nil {
		return err
	}
	if c.target.null == nil && !strings.Contains(string(r.body), "HTTP/1.1 204") {
		return fmt.Errorf("batch failed: %.200s", r.body)
	}
	return nil
}
