package blob_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// engines runs a scenario on the memory engine and on sqlite with file
// extents.
func engines(t *testing.T, run func(t *testing.T, e *env)) {
	enginesWith(t, nil, run)
}

// hnsEngines is engines with the account having a hierarchical namespace,
// so that its blobs may expire.
func hnsEngines(t *testing.T, run func(t *testing.T, e *env)) {
	enginesWith(t, withHNS, run)
}

func enginesWith(t *testing.T, configure func(*config.Config), run func(t *testing.T, e *env)) {
	for _, inMemory := range []bool{true, false} {
		name := "sqlite"
		if inMemory {
			name = "memory"
		}
		t.Run(name, func(t *testing.T) {
			run(t, startWith(t, lazulitest.Options{InMemory: inMemory, Configure: configure}))
		})
	}
}

// The SDK's recorded tests (TestBlockBlobSetExpiry*) set each option, read
// x-ms-expiry-time back, and find the blob gone (404 BlobNotFound) once
// the time passed. Here a fake clock passes it.
func TestSetBlobExpiryOptions(t *testing.T) {
	hnsEngines(t, func(t *testing.T, e *env) {
		c := e.container("expiry")
		cases := []struct {
			name   string
			expiry func(now time.Time) blockblob.ExpiryType
			wantAt func(now, created time.Time) time.Time
		}{
			{"relative-to-now", func(time.Time) blockblob.ExpiryType { return blockblob.ExpiryTypeRelativeToNow(8 * time.Second) },
				func(now, _ time.Time) time.Time { return now.Add(8 * time.Second) }},
			{"relative-to-creation", func(time.Time) blockblob.ExpiryType {
				return blockblob.ExpiryTypeRelativeToCreation(20 * time.Second)
			}, func(_, created time.Time) time.Time { return created.Add(20 * time.Second) }},
			{"absolute", func(now time.Time) blockblob.ExpiryType {
				return blockblob.ExpiryTypeAbsolute(now.Add(8 * time.Second))
			},
				func(now, _ time.Time) time.Time { return now.Add(8 * time.Second) }},
		}
		for _, tc := range cases {
			b := e.upload(c, tc.name, []byte("short-lived"))
			p := e.props(b.BlobClient())
			if p.ExpiresOn != nil {
				t.Fatalf("%s: a new blob has an expiry %v", tc.name, p.ExpiresOn)
			}
			created := *p.CreationTime
			e.in.Fake.Advance(5 * time.Second)
			now := e.in.Fake.Now()
			if _, err := b.SetExpiry(e.ctx, tc.expiry(now), nil); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			want := tc.wantAt(now, created).Truncate(time.Second)
			p = e.props(b.BlobClient())
			if p.ExpiresOn == nil || !p.ExpiresOn.Equal(want) {
				t.Fatalf("%s: x-ms-expiry-time %v, want %v", tc.name, p.ExpiresOn, want)
			}
			if it := listedItem(t, e, c, tc.name); it.Properties.ExpiresOn == nil || !it.Properties.ExpiresOn.Equal(want) {
				t.Fatalf("%s: listed Expiry-Time %v, want %v", tc.name, it.Properties.ExpiresOn, want)
			}
			// Up to the instant the blob is there; from it on it is not.
			// (The creation time read back has whole seconds only, so the
			// instant relative to it is known to a second.)
			at := tc.wantAt(now, created)
			e.in.Fake.Set(at.Add(-time.Millisecond))
			e.props(b.BlobClient())
			if tc.name == "relative-to-creation" {
				at = at.Add(time.Second)
			}
			e.in.Fake.Set(at)
			_, err := b.GetProperties(e.ctx, nil)
			wantCode(t, err, 404, "BlobNotFound")
			_, err = b.DownloadStream(e.ctx, nil)
			wantCode(t, err, 404, "BlobNotFound")
			_, err = b.SetMetadata(e.ctx, nil, nil)
			wantCode(t, err, 404, "BlobNotFound")
			if got := e.listed(c, container.ListBlobsInclude{}, 0); strings.Contains(got, tc.name) {
				t.Fatalf("%s: an expired blob is listed: %q", tc.name, got)
			}
			// The name is free again: a new blob starts without an expiry.
			nb := e.upload(c, tc.name, []byte("again"))
			if p := e.props(nb.BlobClient()); p.ExpiresOn != nil {
				t.Fatalf("%s: the new blob inherited an expiry", tc.name)
			}
		}
	})
}

func listedItem(t *testing.T, e *env, c *container.Client, name string) *container.BlobItem {
	t.Helper()
	pager := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &name})
	page, err := pager.NextPage(e.ctx)
	if err != nil || len(page.Segment.BlobItems) != 1 {
		t.Fatalf("listing %s: %v (%d items)", name, err, len(page.Segment.BlobItems))
	}
	return page.Segment.BlobItems[0]
}

func TestSetBlobExpiryNeverAndErrors(t *testing.T) {
	e := startHNS(t)
	c := e.container("expiry")
	b := e.upload(c, "doc", []byte("x"))
	before := e.props(b.BlobClient())
	must(b.SetExpiry(e.ctx, blockblob.ExpiryTypeRelativeToNow(time.Hour), nil)).on(t)
	after := e.props(b.BlobClient())
	if *after.ETag != *before.ETag || !after.LastModified.Equal(*before.LastModified) {
		t.Fatalf("Set Blob Expiry changed the ETag or Last-Modified")
	}
	must(b.SetExpiry(e.ctx, blockblob.ExpiryTypeNever{}, nil)).on(t)
	if p := e.props(b.BlobClient()); p.ExpiresOn != nil {
		t.Fatalf("NeverExpire left %v", p.ExpiresOn)
	}
	e.in.Fake.Advance(2 * time.Hour)
	e.props(b.BlobClient())

	// An absolute time already past is 400 InvalidHeaderValue
	// (TestBlockBlobSetExpiryToPast) and changes nothing.
	_, err := b.SetExpiry(e.ctx, blockblob.ExpiryTypeAbsolute(e.in.Fake.Now().Add(-time.Second)), nil)
	wantCode(t, err, 400, "InvalidHeaderValue")
	if p := e.props(b.BlobClient()); p.ExpiresOn != nil {
		t.Fatalf("a refused expiry was stored")
	}
	_, err = c.NewBlockBlobClient("missing").SetExpiry(e.ctx, blockblob.ExpiryTypeNever{}, nil)
	wantCode(t, err, 404, "BlobNotFound")

	for _, tc := range []struct {
		header http.Header
		code   string
	}{
		{http.Header{}, "MissingRequiredHeader"},
		{http.Header{"X-Ms-Expiry-Option": {"Sometime"}}, "InvalidHeaderValue"},
		{http.Header{"X-Ms-Expiry-Option": {"RelativeToNow"}}, "MissingRequiredHeader"},
		{http.Header{"X-Ms-Expiry-Option": {"RelativeToNow"}, "X-Ms-Expiry-Time": {"-5"}}, "InvalidHeaderValue"},
		{http.Header{"X-Ms-Expiry-Option": {"RelativeToNow"}, "X-Ms-Expiry-Time": {"soon"}}, "InvalidHeaderValue"},
		{http.Header{"X-Ms-Expiry-Option": {"Absolute"}, "X-Ms-Expiry-Time": {"tomorrow"}}, "InvalidHeaderValue"},
		{http.Header{"X-Ms-Expiry-Option": {"NeverExpire"}, "X-Ms-Expiry-Time": {"1000"}}, "InvalidHeaderValue"},
	} {
		resp := e.raw(http.MethodPut, "expiry/doc?comp=expiry", tc.header, nil)
		if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != tc.code {
			t.Fatalf("%v: %d %s, want 400 %s", tc.header, resp.StatusCode, resp.Header.Get("x-ms-error-code"), tc.code)
		}
	}

	// A leased blob takes Set Blob Expiry only with its lease ID.
	lc := must(lease.NewBlobClient(b, nil)).on(t)
	must(lc.AcquireLease(e.ctx, -1, nil)).on(t)
	resp := e.raw(http.MethodPut, "expiry/doc?comp=expiry", http.Header{"X-Ms-Expiry-Option": {"NeverExpire"}}, nil)
	if resp.StatusCode != 412 || resp.Header.Get("x-ms-error-code") != "LeaseIdMissing" {
		t.Fatalf("leased: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	resp = e.raw(http.MethodPut, "expiry/doc?comp=expiry", http.Header{"X-Ms-Expiry-Option": {"NeverExpire"},
		"X-Ms-Lease-Id": {*lc.LeaseID()}}, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("with the lease ID: %d", resp.StatusCode)
	}
}

// Put Blob takes x-ms-expiry-option and -time (version 2023-08-03); an
// overwrite without them starts with no expiry.
func TestPutBlobWithExpiry(t *testing.T) {
	e := startHNS(t)
	c := e.container("expiry")
	put := func(h http.Header) *http.Response {
		h.Set("X-Ms-Blob-Type", "BlockBlob")
		h.Set("Content-Length", "4")
		return e.raw(http.MethodPut, "expiry/doc", h, []byte("data"))
	}
	if resp := put(http.Header{"X-Ms-Expiry-Option": {"RelativeToNow"}, "X-Ms-Expiry-Time": {"60000"}}); resp.StatusCode != 201 {
		t.Fatalf("put: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	b := c.NewBlobClient("doc")
	want := e.in.Fake.Now().Add(time.Minute).Truncate(time.Second)
	if p := e.props(b); p.ExpiresOn == nil || !p.ExpiresOn.Equal(want) {
		t.Fatalf("expiry %v, want %v", p.ExpiresOn, want)
	}
	if resp := put(http.Header{"X-Ms-Expiry-Option": {"Absolute"}, "X-Ms-Expiry-Time": {"Mon, 01 Jan 2001 00:00:00 GMT"}}); resp.StatusCode != 400 {
		t.Fatalf("a past absolute expiry: %d", resp.StatusCode)
	}
	if resp := put(http.Header{}); resp.StatusCode != 201 {
		t.Fatalf("overwrite: %d", resp.StatusCode)
	}
	if p := e.props(b); p.ExpiresOn != nil {
		t.Fatalf("the overwrite kept the expiry %v", p.ExpiresOn)
	}
}

// An expired blob's records go without anyone reading it: the reaper
// reads the expiry index, so it removes the blob record, its uncommitted
// blocks and the index entry, and releases the content.
func TestExpiredBlobsAreReaped(t *testing.T) {
	hnsEngines(t, func(t *testing.T, e *env) {
		c := e.container("reap")
		var keep []string
		for _, name := range []string{"a", "b", "c", "keep"} {
			b := e.upload(c, name, []byte("content of "+name))
			if name == "keep" {
				keep = append(keep, name)
				must(b.SetExpiry(e.ctx, blockblob.ExpiryTypeRelativeToNow(time.Hour), nil)).on(t)
				continue
			}
			must(b.StageBlock(e.ctx, "YmxvY2s=", nopCloser([]byte("staged")), nil)).on(t)
			must(b.SetExpiry(e.ctx, blockblob.ExpiryTypeRelativeToNow(time.Minute), nil)).on(t)
		}
		if n := countKeys(t, e.in.App.Store, store.SpaceBlobExpiry); n != 4 {
			t.Fatalf("%d expiry index entries, want 4", n)
		}
		e.in.Fake.Advance(2 * time.Minute)
		waitFor(t, func() bool {
			return countKeys(t, e.in.App.Store, store.SpaceBlob) == 1 && countKeys(t, e.in.App.Store, store.SpaceBlock) == 0
		})
		if n := countKeys(t, e.in.App.Store, store.SpaceBlobExpiry); n != 1 {
			t.Fatalf("%d expiry index entries left, want 1", n)
		}
		if got := e.listed(c, container.ListBlobsInclude{UncommittedBlobs: true}, 0); got != strings.Join(keep, " ") {
			t.Fatalf("listing %q", got)
		}
		// The blob that was kept carries on until its own instant.
		e.props(c.NewBlobClient("keep"))
	})
}

// countKeys counts the records of one key space.
func countKeys(t *testing.T, st store.Store, space store.Space) int {
	t.Helper()
	n := 0
	err := st.View(context.Background(), func(tx store.Tx) error {
		start := store.NewKey(space)
		return tx.Scan(start, store.PrefixEnd(start), store.ScanOptions{}, func(_, _ []byte) bool { n++; return true })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls cond, for background work, and fails after 20 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for background work")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Many blobs expiring at once are reaped over several bounded
// transactions, and a write that meets an expired blob starts afresh:
// blocks staged after the instant belong to a new blob.
func TestManyExpiredBlobsAndWritesAfterExpiry(t *testing.T) {
	e := startHNS(t)
	c := e.container("many")
	const n = 300 // more than one reaper transaction takes
	for i := 0; i < n; i++ {
		resp := e.raw(http.MethodPut, fmt.Sprintf("many/b%03d", i), http.Header{"X-Ms-Blob-Type": {"BlockBlob"},
			"X-Ms-Expiry-Option": {"RelativeToNow"}, "X-Ms-Expiry-Time": {"1000"}}, []byte("x"))
		if resp.StatusCode != 201 {
			t.Fatalf("put %d: %d", i, resp.StatusCode)
		}
	}
	b := c.NewBlockBlobClient("b000")
	must(b.StageBlock(e.ctx, "b2xk", nopCloser([]byte("old")), nil)).on(t)
	e.in.Fake.Advance(time.Second)
	must(b.StageBlock(e.ctx, "bmV3", nopCloser([]byte("new")), nil)).on(t)
	_, err := b.CommitBlockList(e.ctx, []string{"b2xk"}, nil)
	wantCode(t, err, 400, "InvalidBlockList")
	must(b.CommitBlockList(e.ctx, []string{"bmV3"}, nil)).on(t)
	if got := e.read(b.BlobClient()); got != "new" {
		t.Fatalf("the blob written after expiry reads %q", got)
	}
	waitFor(t, func() bool { return countKeys(t, e.in.App.Store, store.SpaceBlobExpiry) == 0 })
	if got := e.listed(c, container.ListBlobsInclude{}, 0); got != "b000" {
		t.Fatalf("listing after reaping: %q", got)
	}
}

// The SDKs offer Set Blob Expiry on block and append blobs (an account
// with a hierarchical namespace, where alone blobs expire, has no page
// blobs). Put Blob takes the expiry headers from version 2023-08-03 and
// ignores them before.
func TestExpiryBlobTypesAndVersions(t *testing.T) {
	e := startHNS(t)
	c := e.container("kinds")
	ab := c.NewAppendBlobClient("log")
	must(ab.Create(e.ctx, nil)).on(t)
	must(ab.SetExpiry(e.ctx, appendblob.ExpiryTypeRelativeToNow(time.Minute), nil)).on(t)
	if p := e.props(ab.BlobClient()); p.ExpiresOn == nil {
		t.Fatal("an append blob took no expiry")
	}
	req := must(http.NewRequest(http.MethodPut, e.in.BlobURL+"kinds/old", strings.NewReader("x"))).on(t)
	req.Header.Set("x-ms-version", "2021-12-02")
	req.Header.Set("X-Ms-Blob-Type", "BlockBlob")
	req.Header.Set("X-Ms-Expiry-Option", "RelativeToNow")
	req.Header.Set("X-Ms-Expiry-Time", "1000")
	signRequest(t, req)
	old := must(http.DefaultClient.Do(req)).on(t)
	old.Body.Close()
	if old.StatusCode != 201 {
		t.Fatalf("put with an older version: %d", old.StatusCode)
	}
	if p := e.props(c.NewBlobClient("old")); p.ExpiresOn != nil {
		t.Fatal("an older version's expiry headers were applied")
	}
}

// withHNS gives the test account a hierarchical namespace (--hnsAccounts).
func withHNS(c *config.Config) { c.HNSAccounts = []string{lazulitest.Account} }

// Set Blob Expiry is "allowed only on hierarchical namespace-enabled
// accounts"; a flat one answers 400 HierarchicalNamespaceNotEnabled, as
// the SDK's recorded TestBlockBlobSetExpiryOnHnsDisabledAccount shows, and
// so does Put Blob with x-ms-expiry-option. Get Account Information tells
// which kind the account is.
func TestExpiryNeedsAHierarchicalNamespace(t *testing.T) {
	flat := start(t)
	c := flat.container("flat")
	bb := flat.upload(c, "b", []byte("x"))
	_, err := bb.SetExpiry(flat.ctx, blockblob.ExpiryTypeNever{}, nil)
	wantCode(t, err, 400, "HierarchicalNamespaceNotEnabled")
	_, err = bb.SetExpiry(flat.ctx, blockblob.ExpiryTypeRelativeToNow(time.Hour), nil)
	wantCode(t, err, 400, "HierarchicalNamespaceNotEnabled")
	resp := flat.raw(http.MethodPut, "flat/withexpiry", http.Header{"X-Ms-Blob-Type": {"BlockBlob"},
		"X-Ms-Expiry-Option": {"RelativeToNow"}, "X-Ms-Expiry-Time": {"60000"}}, []byte("x"))
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "HierarchicalNamespaceNotEnabled" {
		t.Fatalf("Put Blob with expiry on a flat account: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	info := must(flat.svc.GetAccountInfo(flat.ctx, nil)).on(t)
	if info.IsHierarchicalNamespaceEnabled == nil || *info.IsHierarchicalNamespaceEnabled {
		t.Fatalf("flat account reports a hierarchical namespace")
	}

	hns := startHNS(t)
	must(hns.upload(hns.container("tree"), "b", []byte("x")).SetExpiry(hns.ctx, blockblob.ExpiryTypeNever{}, nil)).on(t)
	info = must(hns.svc.GetAccountInfo(hns.ctx, nil)).on(t)
	if info.IsHierarchicalNamespaceEnabled == nil || !*info.IsHierarchicalNamespaceEnabled {
		t.Fatalf("--hnsAccounts account reports no hierarchical namespace")
	}
}

// startHNS starts an in-memory Lazuli whose account has a hierarchical
// namespace.
func startHNS(t *testing.T) *env {
	t.Helper()
	return startWith(t, lazulitest.Options{InMemory: true, Configure: withHNS})
}

// An offset from creation that has already elapsed is accepted and the
// blob expires at once: azdatalake's recorded TestFileSetExpiry creates a
// file, sets RelativeToCreation 10 ms after the round trips that took
// longer, gets 200, and the file reads 404 PathNotFound afterwards.
func TestSetBlobExpiryRelativeToCreationElapsed(t *testing.T) {
	e := startHNS(t)
	c := e.container("expiry")
	b := e.upload(c, "doc", []byte("x"))
	e.in.Fake.Advance(time.Second)
	must(b.SetExpiry(e.ctx, blockblob.ExpiryTypeRelativeToCreation(10*time.Millisecond), nil)).on(t)
	_, err := b.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")
}
