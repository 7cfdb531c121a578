package blob_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// setDataProtection turns blob versioning (Lazuli's IsVersioningEnabled
// extension of the service properties) and blob soft delete on or off.
func (e *env) setDataProtection(versioning bool, retentionDays int) {
	e.t.Helper()
	retention := `<DeleteRetentionPolicy><Enabled>false</Enabled></DeleteRetentionPolicy>`
	if retentionDays > 0 {
		retention = fmt.Sprintf(`<DeleteRetentionPolicy><Enabled>true</Enabled><Days>%d</Days><AllowPermanentDelete>true</AllowPermanentDelete></DeleteRetentionPolicy>`, retentionDays)
	}
	body := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties>%s<IsVersioningEnabled>%t</IsVersioningEnabled></StorageServiceProperties>`,
		retention, versioning)
	resp := e.raw(http.MethodPut, "?restype=service&comp=properties", http.Header{"Content-Type": {"application/xml"}}, []byte(body))
	if resp.StatusCode != http.StatusAccepted {
		e.t.Fatalf("set service properties: %d", resp.StatusCode)
	}
}

// listing is one listed state of a blob, as a short string for asserting
// on whole listings: name, then @snapshot, #version (* when current), and
// ~ when deleted.
func listing(it *container.BlobItem) string {
	s := *it.Name
	if it.Snapshot != nil && *it.Snapshot != "" {
		s += "@" + *it.Snapshot
	}
	if it.VersionID != nil {
		s += "#" + *it.VersionID
		if it.IsCurrentVersion != nil && *it.IsCurrentVersion {
			s += "*"
		}
	}
	if it.Deleted != nil && *it.Deleted {
		s += "~"
	}
	return s
}

// listAll lists a container with the include options and returns every
// item, paging by maxResults.
func (e *env) listAll(c *container.Client, inc container.ListBlobsInclude, maxResults int32) []*container.BlobItem {
	e.t.Helper()
	opts := &container.ListBlobsFlatOptions{Include: inc}
	if maxResults > 0 {
		opts.MaxResults = to.Ptr(maxResults)
	}
	var items []*container.BlobItem
	pager := c.NewListBlobsFlatPager(opts)
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		items = append(items, page.Segment.BlobItems...)
	}
	return items
}

// listed is listAll rendered with listing, joined by spaces.
func (e *env) listed(c *container.Client, inc container.ListBlobsInclude, maxResults int32) string {
	e.t.Helper()
	var out []string
	for _, it := range e.listAll(c, inc, maxResults) {
		out = append(out, listing(it))
	}
	return strings.Join(out, " ")
}

// props reads a blob's properties, failing the test on error.
func (e *env) props(b *blob.Client) blob.GetPropertiesResponse {
	e.t.Helper()
	p, err := b.GetProperties(e.ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// read downloads a blob (or a snapshot or version) whole.
func (e *env) read(b *blob.Client) string {
	e.t.Helper()
	resp, err := b.DownloadStream(e.ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// checked is a value and the error that came with it.
type checked[T any] struct {
	v   T
	err error
}

// must pairs a call's two results, so that must(f()).on(t) fails the test
// on an error and otherwise gives the value.
func must[T any](v T, err error) checked[T] { return checked[T]{v, err} }

func (c checked[T]) on(t *testing.T) T {
	t.Helper()
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.v
}
