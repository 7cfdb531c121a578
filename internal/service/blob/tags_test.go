package blob_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// tagsOf reads a blob's tags as "k=v,k=v" in key order.
func (e *env) tagsOf(b *blob.Client) string {
	e.t.Helper()
	resp, err := b.GetTags(e.ctx, nil)
	if err != nil {
		e.t.Fatalf("get tags: %v", err)
	}
	var kv []string
	for _, t := range resp.BlobTagSet {
		kv = append(kv, *t.Key+"="+*t.Value)
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}

func (e *env) tagged(c *container.Client, name string, tags map[string]string) *blockblob.Client {
	e.t.Helper()
	b := c.NewBlockBlobClient(name)
	if _, err := b.Upload(e.ctx, nopCloser([]byte(name)), &blockblob.UploadOptions{Tags: tags}); err != nil {
		e.t.Fatalf("upload %s: %v", name, err)
	}
	return b
}

func ifTags(expr string) *blob.AccessConditions {
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: &expr}}
}

func TestBlobTags(t *testing.T) {
	e := start(t)
	c := e.container("tags")
	b := e.tagged(c, "doc", map[string]string{"Project": "Contoso", "Status": "In Progress", "path": "a/b:c=d_e.f+g-h"})
	if got := e.tagsOf(b.BlobClient()); got != "Project=Contoso,Status=In Progress,path=a/b:c=d_e.f+g-h" {
		t.Fatalf("tags from x-ms-tags: %s", got)
	}
	props, _ := b.GetProperties(e.ctx, nil)
	if props.TagCount == nil || *props.TagCount != 3 {
		t.Fatalf("tag count %v", props.TagCount)
	}
	// Set Blob Tags replaces the set and leaves the ETag alone.
	if _, err := b.SetTags(e.ctx, map[string]string{"Status": "Done"}, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := b.GetProperties(e.ctx, nil)
	if *after.ETag != *props.ETag || !after.LastModified.Equal(*props.LastModified) {
		t.Fatal("Set Blob Tags changed the ETag or Last-Modified")
	}
	if got := e.tagsOf(b.BlobClient()); got != "Status=Done" {
		t.Fatalf("after set: %s", got)
	}
	// Other writes keep the tags; an overwrite without x-ms-tags clears them.
	if _, err := b.SetMetadata(e.ctx, map[string]*string{"m": to.Ptr("1")}, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.tagsOf(b.BlobClient()); got != "Status=Done" {
		t.Fatalf("after set metadata: %s", got)
	}
	if _, err := b.Upload(e.ctx, nopCloser([]byte("v2")), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.tagsOf(b.BlobClient()); got != "" {
		t.Fatalf("after overwrite: %s", got)
	}
	// Limits and characters.
	eleven := map[string]string{}
	for i := 0; i < 11; i++ {
		eleven[fmt.Sprint("k", i)] = "v"
	}
	bad := []struct {
		tags map[string]string
		code string
	}{
		{eleven, "TagsTooLarge"},
		{map[string]string{strings.Repeat("k", 129): "v"}, "TagsTooLarge"},
		{map[string]string{"k": strings.Repeat("v", 257)}, "TagsTooLarge"},
		{map[string]string{"k!": "v"}, "InvalidTag"},
		{map[string]string{"k": "v?"}, "InvalidTag"},
	}
	for _, c := range bad {
		_, err := b.SetTags(e.ctx, c.tags, nil)
		wantCode(t, err, 400, c.code)
		_, err = b.Upload(e.ctx, nopCloser(nil), &blockblob.UploadOptions{Tags: c.tags})
		wantCode(t, err, 400, c.code)
	}
	r := e.raw(http.MethodPut, "tags/doc?comp=tags", nil, []byte(`<Tags><TagSet><Tag><Key>a</Key><Value>1</Value></Tag><Tag><Key>a</Key><Value>2</Value></Tag></TagSet></Tags>`))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "DuplicateTagNames" {
		t.Fatalf("duplicate keys: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	r = e.raw(http.MethodPut, "tags/doc?comp=tags", nil, []byte(`<Tags><TagSet>`))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "InvalidXmlDocument" {
		t.Fatalf("bad XML: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	_, err := c.NewBlobClient("none").GetTags(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")
	// Tags on Put Block List.
	bb := c.NewBlockBlobClient("blocks")
	if _, err := bb.StageBlock(e.ctx, "YWFh", nopCloser([]byte("aaa")), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bb.CommitBlockList(e.ctx, []string{"YWFh"}, &blockblob.CommitBlockListOptions{Tags: map[string]string{"from": "blocklist"}}); err != nil {
		t.Fatal(err)
	}
	if got := e.tagsOf(bb.BlobClient()); got != "from=blocklist" {
		t.Fatalf("tags from Put Block List: %s", got)
	}
}

func TestBlobTagsLeaseAndSAS(t *testing.T) {
	e := start(t)
	c := e.container("tagsec")
	b := e.tagged(c, "x", map[string]string{"a": "1"})
	lc, err := lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr("11111111-2222-3333-4444-555555555555")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	// Setting the tags of a leased blob needs its lease ID (azblob's live
	// test TestSetBlobTagsWithLeaseId); reading them does not. A wrong one
	// fails.
	_, err = b.SetTags(e.ctx, map[string]string{"a": "2"}, nil)
	wantCode(t, err, 412, "LeaseIdMissing")
	if _, err := b.GetTags(e.ctx, nil); err != nil {
		t.Fatalf("get tags of a leased blob: %v", err)
	}
	right := &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: to.Ptr("11111111-2222-3333-4444-555555555555")}}
	if _, err := b.SetTags(e.ctx, map[string]string{"a": "2"}, &blob.SetTagsOptions{AccessConditions: right}); err != nil {
		t.Fatalf("set tags with the lease ID: %v", err)
	}
	wrong := &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: to.Ptr("99999999-2222-3333-4444-555555555555")}}
	_, err = b.SetTags(e.ctx, map[string]string{"a": "3"}, &blob.SetTagsOptions{AccessConditions: wrong})
	wantCode(t, err, 412, "LeaseIdMismatchWithBlobOperation")
	// A SAS needs the t permission.
	readOnly := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "tagsec", BlobName: "x",
		Permissions: (&sas.BlobPermissions{Read: true}).String(), ExpiryTime: time.Now().Add(time.Hour)})
	_, err = anonBlob(t, readOnly).GetTags(e.ctx, nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	withTags := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "tagsec", BlobName: "x",
		Permissions: (&sas.BlobPermissions{Tag: true}).String(), ExpiryTime: time.Now().Add(time.Hour)})
	if _, err := anonBlob(t, withTags).GetTags(e.ctx, nil); err != nil {
		t.Fatalf("get tags with t: %v", err)
	}
}

func TestIfTagsConditions(t *testing.T) {
	e := start(t)
	c := e.container("iftags")
	b := e.tagged(c, "x", map[string]string{"state": "draft", "rev": "3"}).BlobClient()
	holds, fails := `"state" = 'draft' AND "rev" >= '2'`, `"state" = 'final' OR "rev" < '3'`
	checks := []struct {
		name string
		run  func(cond *blob.AccessConditions) error
	}{
		{"get blob", func(ac *blob.AccessConditions) error {
			_, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{AccessConditions: ac})
			return err
		}},
		{"get properties", func(ac *blob.AccessConditions) error {
			_, err := b.GetProperties(e.ctx, &blob.GetPropertiesOptions{AccessConditions: ac})
			return err
		}},
		{"set metadata", func(ac *blob.AccessConditions) error {
			_, err := b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: ac})
			return err
		}},
		{"get tags", func(ac *blob.AccessConditions) error {
			_, err := b.GetTags(e.ctx, &blob.GetTagsOptions{BlobAccessConditions: ac})
			return err
		}},
		{"set tags", func(ac *blob.AccessConditions) error {
			_, err := b.SetTags(e.ctx, map[string]string{"state": "draft", "rev": "3"}, &blob.SetTagsOptions{AccessConditions: ac})
			return err
		}},
		{"put blob", func(ac *blob.AccessConditions) error {
			_, err := c.NewBlockBlobClient("x").Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{
				AccessConditions: ac, Tags: map[string]string{"state": "draft", "rev": "3"}})
			return err
		}},
	}
	for _, ch := range checks {
		if err := ch.run(ifTags(holds)); err != nil {
			t.Fatalf("%s with a holding condition: %v", ch.name, err)
		}
		wantCode(t, ch.run(ifTags(fails)), 412, "ConditionNotMet")
	}
	pinMalformedIfTags(t, e, "iftags/x")
	// Seal takes no x-ms-if-tags.
	e.newAppendBlob(c, "log")
	r := e.raw(http.MethodPut, "iftags/log?comp=seal", http.Header{"x-ms-if-tags": {holds}}, nil)
	if r.StatusCode != 400 {
		t.Fatalf("seal with x-ms-if-tags: %d", r.StatusCode)
	}
}

// pinMalformedIfTags pins the answer to an x-ms-if-tags the service cannot
// evaluate: "The storage service will reject any request that contains an
// invalid expression with error code 400 (Bad Request)" ("Specifying
// conditional headers for Blob service operations", Tags Predicate
// Syntax). The reference names no error code and no recorded Azure session
// has one, so Lazuli names the header as it does for every other malformed
// header (InvalidHeaderValue, as Azurite does too). Invalid covers bad
// syntax, an operator only Find Blobs by Tags takes, more than the ten
// logical operations the same section allows, and an expression over
// 4 KiB; ten logical operations are evaluated.
func pinMalformedIfTags(t *testing.T, e *env, path string) {
	t.Helper()
	comparisons := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = `"state" = 'draft'`
		}
		return strings.Join(parts, " AND ")
	}
	for _, c := range []struct {
		name, expr string
		status     int
	}{
		{"unquoted value", `"state" = draft`, 400},
		{"doubled operator", `"state" == 'draft'`, 400},
		{"dangling AND", `"state" = 'draft' AND`, 400},
		{"unbalanced parenthesis", `("state" = 'draft'`, 400},
		{"@container", `@container = 'iftags'`, 400},
		{"eleven logical operations", comparisons(12), 400},
		{"over 4 KiB", `"state" = '` + strings.Repeat("x", 4096) + `'`, 400},
		{"ten logical operations", comparisons(11), 200},
	} {
		r := e.raw(http.MethodGet, path, http.Header{"x-ms-if-tags": {c.expr}}, nil)
		code := r.Header.Get("x-ms-error-code")
		if r.StatusCode != c.status || c.status == 400 && code != "InvalidHeaderValue" {
			t.Errorf("x-ms-if-tags with %s: %d %s", c.name, r.StatusCode, code)
		}
	}
}

func TestListBlobsWithTags(t *testing.T) {
	e := start(t)
	c := e.container("listtags")
	e.tagged(c, "a", map[string]string{"k": "v", "n": "1"})
	e.upload(c, "b", []byte("b"))
	items := e.listAll(c, container.ListBlobsInclude{Tags: true}, 0)
	if len(items) != 2 || items[0].BlobTags == nil || len(items[0].BlobTags.BlobTagSet) != 2 || *items[0].Properties.TagCount != 2 {
		t.Fatalf("listing with tags: %+v", items[0])
	}
	if items[1].BlobTags != nil && len(items[1].BlobTags.BlobTagSet) != 0 {
		t.Fatal("an untagged blob lists tags")
	}
	plain := e.listAll(c, container.ListBlobsInclude{}, 0)
	if plain[0].BlobTags != nil {
		t.Fatal("tags listed without include=tags")
	}
}

// found runs Find Blobs by Tags to the end and returns "container/name"
// entries and the number of pages.
func (e *env) found(where string, max int32, c *container.Client) ([]string, int) {
	e.t.Helper()
	var out []string
	var marker *string
	pages := 0
	for {
		var blobs []*service.FilterBlobItem
		var next *string
		if c == nil {
			resp, err := e.svc.FilterBlobs(e.ctx, where, &service.FilterBlobsOptions{Marker: marker, MaxResults: &max})
			if err != nil {
				e.t.Fatalf("find %s: %v", where, err)
			}
			blobs, next = resp.Blobs, resp.NextMarker
		} else {
			resp, err := c.FilterBlobs(e.ctx, where, &container.FilterBlobsOptions{Marker: marker, MaxResults: &max})
			if err != nil {
				e.t.Fatalf("find %s: %v", where, err)
			}
			blobs, next = resp.Blobs, resp.NextMarker
		}
		pages++
		if len(blobs) > int(max) {
			e.t.Fatalf("page of %d entries, max %d", len(blobs), max)
		}
		for _, b := range blobs {
			out = append(out, *b.ContainerName+"/"+*b.Name)
		}
		if next == nil || *next == "" {
			return out, pages
		}
		marker = next
	}
}

func TestFindBlobsByTags(t *testing.T) {
	e := start(t)
	red, blue := e.container("red"), e.container("blue")
	e.tagged(red, "r1", map[string]string{"color": "red", "size": "10"})
	e.tagged(red, "r2", map[string]string{"color": "red", "size": "20"})
	e.tagged(blue, "b1", map[string]string{"color": "blue", "size": "10"})
	e.tagged(blue, "b2", map[string]string{"color": "red", "size": "30"})
	e.upload(blue, "plain", []byte("p"))
	cases := []struct {
		where string
		c     *container.Client
		want  string
	}{
		{`"color" = 'red'`, nil, "[blue/b2 red/r1 red/r2]"},
		{`"size" >= '20'`, nil, "[red/r2 blue/b2]"},
		{`"size" > '10' AND "size" < '30'`, nil, "[red/r2]"},
		{`"color" = 'red' AND "size" <= '20'`, nil, "[red/r1 red/r2]"},
		{`@container = 'blue' AND "color" = 'red'`, nil, "[blue/b2]"},
		{`"color" = 'red'`, blue, "[blue/b2]"},
		{`"color" = 'green'`, nil, "[]"},
		{`"missing" >= ''`, nil, "[]"},
	}
	for _, c := range cases {
		got, _ := e.found(c.where, 100, c.c)
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: got %v, want %s", c.where, got, c.want)
		}
	}
	// Only the tags the expression names come back.
	resp, err := e.svc.FilterBlobs(e.ctx, `"color" = 'blue'`, nil)
	if err != nil || len(resp.Blobs) != 1 || len(resp.Blobs[0].Tags.BlobTagSet) != 1 || *resp.Blobs[0].Tags.BlobTagSet[0].Key != "color" ||
		resp.Where == nil || *resp.Where != `"color" = 'blue'` {
		t.Fatalf("find answer: %v %+v", err, resp)
	}
	// The index follows tag changes, overwrites, deletes and container deletion.
	r1 := red.NewBlobClient("r1")
	if _, err := r1.SetTags(e.ctx, map[string]string{"color": "green"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := red.NewBlockBlobClient("r2").Upload(e.ctx, nopCloser([]byte("new")), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blue.NewBlobClient("b2").Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.found(`"color" = 'red'`, 100, nil); len(got) != 0 {
		t.Fatalf("stale index entries: %v", got)
	}
	if got, _ := e.found(`"color" = 'green'`, 100, nil); fmt.Sprint(got) != "[red/r1]" {
		t.Fatalf("after retag: %v", got)
	}
	if _, err := red.Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.found(`"color" = 'green'`, 100, nil); len(got) != 0 {
		t.Fatalf("entries of a deleted container: %v", got)
	}
	// Malformed expressions.
	for _, where := range []string{``, `"color" = red`, `"a" = 'x' OR "b" = 'y'`, `"a" <> 'x'`} {
		r := e.raw(http.MethodGet, "?comp=blobs&where="+url.QueryEscape(where), nil, nil)
		if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "InvalidQueryParameterValue" {
			t.Errorf("where %q: %d %s", where, r.StatusCode, r.Header.Get("x-ms-error-code"))
		}
	}
	r := e.raw(http.MethodGet, "?comp=blobs", nil, nil)
	if r.StatusCode != 400 {
		t.Fatalf("no where: %d", r.StatusCode)
	}
	_, err = e.svc.NewContainerClient("nosuch").FilterBlobs(e.ctx, `"a" = 'b'`, nil)
	wantCode(t, err, 404, "ContainerNotFound")
}

// TestFindBlobsByTagsPaging: a query whose driving range interleaves
// matching and non-matching blobs pages across at least three pages with
// every match exactly once, even when whole stretches of the scan match
// nothing.
func TestFindBlobsByTagsPaging(t *testing.T) {
	e := start(t)
	c := e.container("paged")
	var want []string
	for i := 0; i < 40; i++ {
		team := "b"
		if i%3 == 0 || (i >= 20 && i < 30) {
			team = "a"
		}
		name := fmt.Sprintf("blob%03d", i)
		e.tagged(c, name, map[string]string{"n": fmt.Sprintf("%03d", i), "team": team})
		if team == "a" {
			want = append(want, "paged/"+name)
		}
	}
	// No equality: the scan reads the "n" entries and filters by team.
	got, pages := e.found(`"n" >= '000' AND "team" >= 'a' AND "team" < 'b'`, 4, nil)
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) || pages < 3 {
		t.Fatalf("%d pages: got %v, want %v", pages, got, want)
	}
	// The same through the container-level operation, by equality.
	got, pages = e.found(`"team" = 'a'`, 5, c)
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) || pages < 3 {
		t.Fatalf("container level, %d pages: %v", pages, got)
	}
}

// TestFindFollowsSoftDeleteAndVersions: a soft-deleted blob is not found
// and is found again once undeleted; previous versions are never found.
func TestFindFollowsSoftDeleteAndVersions(t *testing.T) {
	e := start(t)
	e.setDataProtection(false, 1)
	c := e.container("soft")
	b := e.tagged(c, "x", map[string]string{"k": "v"})
	if _, err := b.Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.found(`"k" = 'v'`, 10, nil); len(got) != 0 {
		t.Fatalf("soft-deleted blob found: %v", got)
	}
	if _, err := b.Undelete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.found(`"k" = 'v'`, 10, nil); fmt.Sprint(got) != "[soft/x]" {
		t.Fatalf("undeleted blob: %v", got)
	}
	e.setDataProtection(true, 0)
	e.tagged(c, "x", map[string]string{"k": "w"})
	if got, _ := e.found(`"k" = 'v'`, 10, nil); len(got) != 0 {
		t.Fatalf("a previous version was found: %v", got)
	}
	if got, _ := e.found(`"k" = 'w'`, 10, nil); fmt.Sprint(got) != "[soft/x]" {
		t.Fatalf("current version: %v", got)
	}
}

// TestFindBlobsByTagsPermissions: an account SAS needs f at the account
// level; a container SAS with f finds in its container only.
func TestFindBlobsByTagsPermissions(t *testing.T) {
	e := start(t)
	c := e.container("perm")
	e.tagged(c, "x", map[string]string{"k": "v"})
	where := `"k" = 'v'`
	if _, err := accountSASService(t, e, sas.AccountPermissions{Read: true, List: true}).FilterBlobs(e.ctx, where, nil); err == nil {
		t.Fatal("find without the f permission")
	} else {
		wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	}
	resp, err := accountSASService(t, e, sas.AccountPermissions{FilterByTags: true}).FilterBlobs(e.ctx, where, nil)
	if err != nil || len(resp.Blobs) != 1 {
		t.Fatalf("find with f: %v", err)
	}
	u := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "perm",
		Permissions: (&sas.ContainerPermissions{FilterByTags: true}).String(), ExpiryTime: time.Now().Add(time.Hour)})
	cc, err := container.NewClientWithNoCredential(u, &container.ClientOptions{ClientOptions: clientOptions().ClientOptions})
	if err != nil {
		t.Fatal(err)
	}
	cresp, err := cc.FilterBlobs(e.ctx, where, nil)
	if err != nil || len(cresp.Blobs) != 1 {
		t.Fatalf("container find with f: %v", err)
	}
}

// TestFindBlobsTenUniqueTagsOverSockets: ten distinct tag keys plus
// @container find the blob; an eleventh key is 400
// InvalidQueryParameterValue (see TestFindQueryCountsUniqueTags).
func TestFindBlobsTenUniqueTagsOverSockets(t *testing.T) {
	e := start(t)
	c := e.container("tenkeys")
	tags := map[string]string{}
	where := `@container = 'tenkeys'`
	for i := 0; i < 10; i++ {
		k := fmt.Sprintf("k%d", i)
		tags[k] = "v"
		where += fmt.Sprintf(` AND "%s" = 'v'`, k)
	}
	e.tagged(c, "b", tags)
	resp, err := e.svc.FilterBlobs(e.ctx, where, nil)
	if err != nil || len(resp.Blobs) != 1 {
		t.Fatalf("ten keys and @container: %v %+v", err, resp)
	}
	_, err = e.svc.FilterBlobs(e.ctx, where+` AND "k10" = 'v'`, nil)
	wantCode(t, err, 400, "InvalidQueryParameterValue")
	// Find Blobs by Tags in Container takes its container from the URL
	// alone: "Error parsing query: Cannot have container in both uri and
	// query" (Azure/azure-sdk-for-net#27610).
	_, err = c.FilterBlobs(e.ctx, where, nil)
	wantCode(t, err, 400, "InvalidQueryParameterValue")
}

// Get and Set Blob Tags take x-ms-blob-if-* conditions on the blob's ETag
// and Last-Modified (the SDK's recorded
// TestGetSetTagsWithBlobModifiedAccessConditions): a failing one is 412.
func TestTagsBlobConditions(t *testing.T) {
	e := start(t)
	bb := e.upload(e.container("tagconds"), "b", []byte("x"))
	props := must(bb.GetProperties(e.ctx, nil)).on(t)
	past := props.LastModified.Add(-time.Hour)
	tags := map[string]string{"env": "test"}
	set := func(c blob.BlobModifiedAccessConditions) error {
		_, err := bb.SetTags(e.ctx, tags, &blob.SetTagsOptions{BlobModifiedAccessConditions: &c})
		return err
	}
	if err := set(blob.BlobModifiedAccessConditions{IfMatch: props.ETag}); err != nil {
		t.Fatal(err)
	}
	if err := set(blob.BlobModifiedAccessConditions{IfModifiedSince: &past}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, set(blob.BlobModifiedAccessConditions{IfNoneMatch: props.ETag}), http.StatusPreconditionFailed, "ConditionNotMet")
	wantCode(t, set(blob.BlobModifiedAccessConditions{IfUnmodifiedSince: &past}), http.StatusPreconditionFailed, "ConditionNotMet")
	// The SDK sends Get Blob Tags' modified conditions as x-ms-blob-if-*.
	_, err := bb.GetTags(e.ctx, &blob.GetTagsOptions{BlobAccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfUnmodifiedSince: &past}}})
	wantCode(t, err, http.StatusPreconditionFailed, "ConditionNotMet")
}
