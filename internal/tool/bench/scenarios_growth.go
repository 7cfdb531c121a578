package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// growthScenarios measure how a request's cost grows with the data behind
// it: each is sized by an option (Options.ListBlobs, TableRows,
// TaggedBlobs) so that the same request can be timed over 10^3 and 10^5
// records, and a cost that grows faster than the answer it returns shows.
func growthScenarios() []scenario {
	return []scenario{
		{name: "list-blobs-delimited", svc: auth.Blob, setup: listBlobsDelimited},
		{name: "table-query-partition", svc: auth.Table, nullBody: 20000, setup: tableQueryPartition},
		{name: "find-blobs-tags", svc: auth.Blob, nullBody: 20000, setup: findBlobsTags},
	}
}

// blobsPerDirectory is how many blobs share each "directory" prefix of
// list-blobs-delimited, and entitiesPerPartition how many entities share a
// partition of table-query-partition.
const (
	blobsPerDirectory    = 100
	entitiesPerPartition = 100
)

// listBlobsDelimited walks a delimited listing of the container's root
// with its markers: Options.ListBlobs blobs named dNNNNN/item-NNNNNNN,
// blobsPerDirectory under each directory, so that a page holds one
// BlobPrefix per directory and the scan seeks past each one's blobs.
func listBlobsDelimited(ctx context.Context, e *env) (op, func(context.Context), error) {
	n := e.opts.ListBlobs
	if n <= 0 {
		n = 100000
	}
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, n, 32, func(ctx context.Context, i int) error {
		_, err := putBlob(ctx, e.c, container, fmt.Sprintf("d%05d/item-%07d", i/blobsPerDirectory, i), nil, nil)
		return err
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	markers := make([]string, e.workers)
	return func(ctx context.Context, w, seq int) (int64, error) {
		q := url.Values{"comp": {"list"}, "maxresults": {"5000"}, "delimiter": {"/"}}
		if markers[w] != "" {
			q.Set("marker", markers[w])
		}
		r, err := e.c.do(ctx, call{svc: auth.Blob, method: "GET", path: "/" + container,
			query: withRestype(q), sink: keepBody})
		if err != nil {
			return 0, err
		}
		markers[w] = xmlElement(r.body, "NextMarker")
		if xmlElement(r.body, "BlobPrefix") == "" && e.c.target.null == nil {
			return 0, errors.New("list-blobs-delimited: no BlobPrefix")
		}
		return r.bytes, nil
	}, cleanup, nil
}

// tableRows is the table size of the table-query scenarios.
func tableRows(e *env) int {
	if e.opts.TableRows > 0 {
		return e.opts.TableRows
	}
	return e.size(20000, 2000)
}

// tableQueryPartition queries one partition of entitiesPerPartition
// entities by PartitionKey in a table of Options.TableRows entities, a
// different partition each time, following continuations.
func tableQueryPartition(ctx context.Context, e *env) (op, func(context.Context), error) {
	rows := tableRows(e)
	partitions := max(1, rows/entitiesPerPartition)
	table, cleanup, err := withTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, partitions, 8, func(ctx context.Context, p int) error {
		return submitBatch(ctx, e.c, table, partitionKey(p), p*entitiesPerPartition, entitiesPerPartition)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		pk := partitionKey((w*7919 + seq) % partitions)
		return followQuery(ctx, e.c, table, url.Values{"$filter": {"PartitionKey eq '" + pk + "'"}})
	}, cleanup, nil
}

func partitionKey(p int) string { return fmt.Sprintf("p%05d", p) }

// followQuery runs a Query Entities and its continuations to the end and
// returns the bytes read.
func followQuery(ctx context.Context, c *client, table string, q url.Values) (int64, error) {
	var moved int64
	for page := 0; page < 1000; page++ {
		r, err := c.do(ctx, tableCall("GET", "/"+table+"()", q, nil, nil))
		if err != nil {
			return moved, err
		}
		moved += r.bytes
		npk, nrk := r.header.Get("x-ms-continuation-NextPartitionKey"), r.header.Get("x-ms-continuation-NextRowKey")
		if npk == "" {
			return moved, nil
		}
		q.Set("NextPartitionKey", npk)
		q.Set("NextRowKey", nrk)
	}
	return moved, errors.New("table query: more than 1000 pages")
}

// findBlobsTags finds, with Find Blobs by Tags in one container, the 1% of
// Options.TaggedBlobs blobs whose tag group is 42, following NextMarker.
func findBlobsTags(ctx context.Context, e *env) (op, func(context.Context), error) {
	n := e.opts.TaggedBlobs
	if n <= 0 {
		n = e.size(10000, 200)
	}
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, n, 32, func(ctx context.Context, i int) error {
		tags := url.Values{"group": {strconv.Itoa(i % 100)}, "n": {strconv.Itoa(i)}}
		_, err := putBlob(ctx, e.c, container, fmt.Sprintf("tagged-%07d", i), nil, http.Header{"X-Ms-Tags": {tags.Encode()}})
		return err
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		q := url.Values{"comp": {"blobs"}, "where": {`"group" = '42'`}}
		var moved int64
		for page := 0; page < 1000; page++ {
			r, err := e.c.do(ctx, call{svc: auth.Blob, method: "GET", path: "/" + container,
				query: withRestype(q), sink: keepBody})
			if err != nil {
				return moved, err
			}
			moved += r.bytes
			next := xmlElement(r.body, "NextMarker")
			if next == "" {
				if xmlElement(r.body, "Name") == "" && e.c.target.null == nil {
					return moved, errors.New("find-blobs-tags: nothing found")
				}
				return moved, nil
			}
			q.Set("marker", next)
		}
		return moved, errors.New("find-blobs-tags: more than 1000 pages")
	}, cleanup, nil
}
