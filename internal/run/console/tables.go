package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Query Entities' continuation: the response headers that say where the
// next page starts and the query parameters that ask for it (Azure REST,
// "Query Timeout and Pagination").
const (
	nextPartitionHeader = "X-Ms-Continuation-Nextpartitionkey"
	nextRowHeader       = "X-Ms-Continuation-Nextrowkey"
	nextPartitionParam  = "NextPartitionKey"
	nextRowParam        = "NextRowKey"
)

// entities queries one page of a table's entities (pageSize of them at
// most, $top), with the OData $filter the page's filter box holds,
// through Query Entities. Full metadata gives every property's EDM type
// but those JSON tells (String, Int32, Boolean), so that the page edits
// each property as the type it has. The page's marker is the service's
// continuation as a query string (NextPartitionKey and NextRowKey), which
// the answer's nextMarker carries on; the page passes it back unread.
func (c *Console) entities(r *http.Request) (any, error) {
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	q := r.URL.Query()
	query := url.Values{"$top": {strconv.Itoa(pageSize)}}
	if f := q.Get("filter"); f != "" {
		query.Set("$filter", f)
	}
	if err := continueFrom(q.Get("marker"), query); err != nil {
		return nil, err
	}
	rec, err := c.call(ctx, "table", q.Get("account"), http.MethodGet, "/"+q.Get("table")+"()", query,
		http.Header{"Accept": {"application/json;odata=fullmetadata"}})
	if err != nil {
		return nil, err
	}
	page := struct {
		Value []map[string]any `json:"value"`
	}{}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		return nil, err
	}
	if page.Value == nil {
		page.Value = []map[string]any{}
	}
	next := url.Values{}
	if pk := rec.Header().Get(nextPartitionHeader); pk != "" {
		next.Set(nextPartitionParam, pk)
		if rk := rec.Header().Get(nextRowHeader); rk != "" {
			next.Set(nextRowParam, rk)
		}
	}
	return map[string]any{"entities": page.Value, "nextMarker": next.Encode()}, nil
}

// continueFrom sets on query the continuation a marker holds; a marker
// that is not one is the caller's error.
func continueFrom(marker string, query url.Values) error {
	if marker == "" {
		return nil
	}
	m, err := url.ParseQuery(marker)
	if err != nil || m.Get(nextPartitionParam) == "" {
		return badRequest("marker " + marker + " is not a continuation of Query Entities")
	}
	query.Set(nextPartitionParam, m.Get(nextPartitionParam))
	if rk := m.Get(nextRowParam); rk != "" {
		query.Set(nextRowParam, rk)
	}
	return nil
}
