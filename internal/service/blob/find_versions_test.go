package blob_test

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// includeVersions adds include=versions to Find Blobs by Tags requests:
// azblob v1.8.3 parses VersionId and IsCurrentVersion of each match but
// has no option to send the parameter.
type includeVersions struct{}

func (includeVersions) Do(req *policy.Request) (*http.Response, error) {
	u := req.Raw().URL
	if q := u.Query(); q.Get("comp") == "blobs" {
		q.Set("include", "versions")
		u.RawQuery = q.Encode()
	}
	return req.Next()
}

// versionFinder is a service client whose Find Blobs by Tags requests
// include versions.
func (e *env) versionFinder() *service.Client {
	e.t.Helper()
	cred := must(service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)).on(e.t)
	opts := clientOptions()
	opts.PerCallPolicies = []policy.Policy{includeVersions{}}
	return must(service.NewClientWithSharedKeyCredential(e.in.BlobURL, cred, opts)).on(e.t)
}

// foundVersions lists every match of where, page by page, as
// "container/name#version" with * for the current version, sorted.
func foundVersions(t *testing.T, ctx context.Context, svc *service.Client, where, inContainer string, max int32) []string {
	t.Helper()
	var out []string
	var marker *string
	for {
		var blobs []*service.FilterBlobItem
		var next *string
		if inContainer == "" {
			resp := must(svc.FilterBlobs(ctx, where, &service.FilterBlobsOptions{Marker: marker, MaxResults: &max})).on(t)
			blobs, next = resp.Blobs, resp.NextMarker
		} else {
			resp := must(svc.NewContainerClient(inContainer).FilterBlobs(ctx, where,
				&container.FilterBlobsOptions{Marker: marker, MaxResults: &max})).on(t)
			blobs, next = resp.Blobs, resp.NextMarker
		}
		for _, b := range blobs {
			s := *b.ContainerName + "/" + *b.Name
			if b.VersionID != nil {
				s += "#" + *b.VersionID
			}
			if b.IsCurrentVersion != nil && *b.IsCurrentVersion {
				s += "*"
			}
			out = append(out, s)
		}
		if next == nil || *next == "" {
			sort.Strings(out)
			return out
		}
		marker = next
	}
}

// TestFindBlobsByTagsIncludeVersions: with include=versions every version
// is found by the tags it has: the tags it had when it stopped being
// current, or those Set Blob Tags gave it since. Without it only current
// blobs are found.
func TestFindBlobsByTagsIncludeVersions(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		finder := e.versionFinder()
		c := e.container("fvs")
		upload := func(name, k string) string {
			resp := must(c.NewBlockBlobClient(name).Upload(e.ctx, nopCloser([]byte(name+k)),
				&blockblob.UploadOptions{Tags: map[string]string{"k": k}})).on(t)
			if resp.VersionID == nil {
				return ""
			}
			return *resp.VersionID
		}
		find := func(where, inContainer string) string {
			return strings.Join(foundVersions(t, e.ctx, finder, where, inContainer, 1), " ")
		}
		upload("plain", "5") // versioning off: no version ID
		upload("old", "1")
		e.setDataProtection(true, 0)
		a1 := upload("a", "1")
		a := c.NewBlobClient("a")
		// Set Blob Tags changes the current version's tags in place.
		must(a.SetTags(e.ctx, map[string]string{"k": "2"}, nil)).on(t)
		a2 := upload("a", "1")
		o2 := upload("old", "3")
		oldVersions := strings.Fields(e.listed(c, container.ListBlobsInclude{Versions: true}, 0))
		var o1 string
		for _, l := range oldVersions {
			if id, ok := strings.CutPrefix(l, "old#"); ok && !strings.HasSuffix(id, "*") {
				o1 = id
			}
		}
		if o1 == "" {
			t.Fatalf("the blob written before versioning kept no version: %v", oldVersions)
		}

		for _, tc := range []struct{ where, in, want string }{
			{`"k"='1'`, "", "fvs/a#" + a2 + "* fvs/old#" + o1},
			{`"k"='2'`, "", "fvs/a#" + a1},
			{`"k"='3'`, "fvs", "fvs/old#" + o2 + "*"},
			{`"k"='5'`, "", "fvs/plain"},
			{`"k">='2' AND "k"<'4'`, "", "fvs/a#" + a1 + " fvs/old#" + o2 + "*"},
			{`@container='fvs' AND "k"='1'`, "", "fvs/a#" + a2 + "* fvs/old#" + o1},
		} {
			if got := find(tc.where, tc.in); got != tc.want {
				t.Fatalf("find %s in %q with versions: %q, want %q", tc.where, tc.in, got, tc.want)
			}
		}
		if got, _ := e.found(`"k"='1'`, 10, nil); strings.Join(got, " ") != "fvs/a" {
			t.Fatalf("without versions: %v", got)
		}
		// Two bounds on one key (each once overwrote the other).
		if got, _ := e.found(`"k">='1' AND "k"<'3'`, 10, nil); strings.Join(got, " ") != "fvs/a" {
			t.Fatalf("range without versions: %v", got)
		}

		// Set Blob Tags on a previous version moves it in the index.
		v1 := must(a.WithVersionID(a1)).on(t)
		must(v1.SetTags(e.ctx, map[string]string{"k": "4"}, nil)).on(t)
		if got := e.tagsOf(a) + " " + e.tagsOf(v1); got != "k=1 k=4" {
			t.Fatalf("tags of the current version and of the one set: %s", got)
		}
		if got := find(`"k"='2'`, ""); got != "" {
			t.Fatalf("the version's old tags still found: %q", got)
		}
		if got := find(`"k"='4'`, "fvs"); got != "fvs/a#"+a1 {
			t.Fatalf("the version's new tags: %q", got)
		}
		// Deleting the base blob keeps it as a previous version, found by
		// the same tags but no longer current.
		must(a.Delete(e.ctx, nil)).on(t)
		if got := find(`"k"='1'`, ""); got != "fvs/a#"+a2+" fvs/old#"+o1 {
			t.Fatalf("after deleting the base blob: %q", got)
		}
		if got, _ := e.found(`"k"='1'`, 10, nil); len(got) != 0 {
			t.Fatalf("a deleted blob is found without versions: %v", got)
		}
		// A deleted version is found no more.
		must(v1.Delete(e.ctx, nil)).on(t)
		if got := find(`"k"='4'`, ""); got != "" {
			t.Fatalf("a deleted version is found: %q", got)
		}

		// Versions move with a renamed container.
		resp := e.raw(http.MethodPut, "renamed?restype=container&comp=rename", http.Header{"X-Ms-Source-Container-Name": {"fvs"}}, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("rename: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
		if got := find(`"k"='1'`, "renamed"); got != "renamed/a#"+a2+" renamed/old#"+o1 {
			t.Fatalf("after the rename: %q", got)
		}
		if got := find(`"k"='1'`, ""); got != "renamed/a#"+a2+" renamed/old#"+o1 {
			t.Fatalf("after the rename, account-wide: %q", got)
		}
		// Deleting the container takes its versions out of the index.
		must(e.svc.DeleteContainer(e.ctx, "renamed", nil)).on(t)
		if got := find(`"k"='1'`, ""); got != "" {
			t.Fatalf("after deleting the container: %q", got)
		}
	})
}

// TestFindBlobsByTagsIncludeValues: include takes versions or none; any
// other value is 400 InvalidQueryParameterValue.
func TestFindBlobsByTagsIncludeValues(t *testing.T) {
	e := start(t)
	c := e.container("inc")
	must(c.NewBlockBlobClient("x").Upload(e.ctx, nopCloser([]byte("x")),
		&blockblob.UploadOptions{Tags: map[string]string{"k": "v"}})).on(t)
	for _, tc := range []struct {
		include string
		status  int
		code    string
	}{
		{"none", 200, ""},
		{"versions", 200, ""},
		{"snapshots", 400, "InvalidQueryParameterValue"},
	} {
		resp := e.raw(http.MethodGet, "?comp=blobs&where=%22k%22%3D%27v%27&include="+tc.include, nil, nil)
		if resp.StatusCode != tc.status || resp.Header.Get("x-ms-error-code") != tc.code {
			t.Errorf("include=%s: %d %s, want %d %s", tc.include, resp.StatusCode, resp.Header.Get("x-ms-error-code"), tc.status, tc.code)
		}
	}
}
