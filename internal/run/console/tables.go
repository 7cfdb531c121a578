package console

import (
	"encoding/json"
	"net/http"
	"net/url"
)

// entities queries a table's entities, with the OData $filter the page's
// filter box holds, through Query Entities. Full metadata gives every
// property's EDM type but those JSON tells (String, Int32, Boolean), so
// that the page edits each property as the type it has.
func (c *Console) entities(r *http.Request) (any, error) {
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	q := r.URL.Query()
	query := url.Values{}
	if f := q.Get("filter"); f != "" {
		query.Set("$filter", f)
	}
	var out []map[string]any
	for pages := 0; pages < 20 && len(out) < 1000; pages++ {
		rec, err := c.call(ctx, "table", q.Get("account"), http.MethodGet, "/"+q.Get("table")+"()", query,
			http.Header{"Accept": {"application/json;odata=fullmetadata"}})
		if err != nil {
			return nil, err
		}
		var page struct {
			Value []map[string]any `json:"value"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			return nil, err
		}
		out = append(out, page.Value...)
		pk, rk := rec.Header().Get("X-Ms-Continuation-Nextpartitionkey"), rec.Header().Get("X-Ms-Continuation-Nextrowkey")
		if pk == "" {
			break
		}
		query.Set("NextPartitionKey", pk)
		query.Set("NextRowKey", rk)
	}
	if out == nil {
		out = []map[string]any{}
	}
	return map[string]any{"entities": out}, nil
}
