package file_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestCreateShare(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := svc.NewShareClient("quota-default")
	resp, err := sh.Create(ctx, &share.CreateOptions{Metadata: map[string]*string{"team": to.Ptr("blue")}})
	must(t, err)
	if resp.ETag == nil || resp.LastModified == nil {
		t.Fatal("create share: no ETag or Last-Modified")
	}
	props, err := sh.GetProperties(ctx, nil)
	must(t, err)
	if *props.Quota != 5120 {
		t.Errorf("default quota = %d, want 5120", *props.Quota)
	}
	if meta(props.Metadata, "team") != "blue" {
		t.Errorf("metadata = %v", props.Metadata)
	}
	if *props.ETag != *resp.ETag {
		t.Errorf("ETag %s, create said %s", *props.ETag, *resp.ETag)
	}
	_, err = sh.Create(ctx, nil)
	wantCode(t, err, http.StatusConflict, "ShareAlreadyExists")

	for _, q := range []int32{0, 102401} {
		_, err := svc.NewShareClient(fmt.Sprintf("quota-%d", q)).Create(ctx, &share.CreateOptions{Quota: to.Ptr(q)})
		wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	}
	big := svc.NewShareClient("quota-max")
	_, err = big.Create(ctx, &share.CreateOptions{Quota: to.Ptr(int32(102400))})
	must(t, err)
	props, err = big.GetProperties(ctx, nil)
	must(t, err)
	if *props.Quota != 102400 {
		t.Errorf("quota = %d, want 102400", *props.Quota)
	}
}

func TestShareNames(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	for _, name := range []string{"ab", "UPPER", "a--b", "-ab", "ab-", "a_b", strings.Repeat("a", 64)} {
		_, err := svc.NewShareClient(name).Create(ctx, nil)
		if got, status := code(err); status != http.StatusBadRequest || (got != "InvalidResourceName" && got != "InvalidUri") {
			t.Errorf("share %q: got %d %s, want 400 InvalidResourceName", name, status, got)
		}
	}
	for _, name := range []string{"abc", "a-b-c", "0123456789", "a23456789012345678901234567890123456789012345678901234567890123"} {
		_, err := svc.NewShareClient(name).Create(ctx, nil)
		must(t, err)
	}
}

func TestShareProperties(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "props")
	before, err := sh.GetProperties(ctx, nil)
	must(t, err)
	set, err := sh.SetProperties(ctx, &share.SetPropertiesOptions{Quota: to.Ptr(int32(100)), AccessTier: to.Ptr(share.AccessTierCool)})
	must(t, err)
	if *set.ETag == *before.ETag {
		t.Error("Set Share Properties kept the ETag")
	}
	after, err := sh.GetProperties(ctx, nil)
	must(t, err)
	if *after.Quota != 100 || *after.AccessTier != "Cool" {
		t.Errorf("quota %d tier %s after set", *after.Quota, *after.AccessTier)
	}
	_, err = sh.SetProperties(ctx, &share.SetPropertiesOptions{Quota: to.Ptr(int32(0))})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")

	setMeta, err := sh.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"a": to.Ptr("1"), "b": to.Ptr("2")}})
	must(t, err)
	if *setMeta.ETag == *set.ETag {
		t.Error("Set Share Metadata kept the ETag")
	}
	after, err = sh.GetProperties(ctx, nil)
	must(t, err)
	if len(after.Metadata) != 2 || meta(after.Metadata, "b") != "2" {
		t.Errorf("metadata after set = %v", after.Metadata)
	}
	_, err = sh.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"1bad": to.Ptr("x")}})
	wantCode(t, err, http.StatusBadRequest, "InvalidMetadata")

	_, err = svc.NewShareClient("missing").GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ShareNotFound")
}

func TestShareACL(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "acl")
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ids := []*share.SignedIdentifier{{ID: to.Ptr("policy1"), AccessPolicy: &share.AccessPolicy{
		Start: &start, Expiry: to.Ptr(start.Add(time.Hour)), Permission: to.Ptr("rl")}}}
	_, err := sh.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{ShareACL: ids})
	must(t, err)
	got, err := sh.GetAccessPolicy(ctx, nil)
	must(t, err)
	if len(got.SignedIdentifiers) != 1 || *got.SignedIdentifiers[0].ID != "policy1" ||
		*got.SignedIdentifiers[0].AccessPolicy.Permission != "rl" || !got.SignedIdentifiers[0].AccessPolicy.Start.Equal(start) {
		t.Fatalf("ACL round trip: %+v", got.SignedIdentifiers)
	}
	var six []*share.SignedIdentifier
	for i := range 6 {
		six = append(six, &share.SignedIdentifier{ID: to.Ptr(fmt.Sprint("p", i)), AccessPolicy: &share.AccessPolicy{Permission: to.Ptr("r")}})
	}
	_, err = sh.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{ShareACL: six})
	wantCode(t, err, http.StatusBadRequest, "InvalidXmlDocument")
	// An Id of 65 characters and letters out of the service's order are
	// refused as the service refuses them (its SDK's live tests).
	for _, bad := range []*share.SignedIdentifier{
		{ID: to.Ptr(strings.Repeat("a", 65)), AccessPolicy: &share.AccessPolicy{Permission: to.Ptr("r")}},
		{ID: to.Ptr("order"), AccessPolicy: &share.AccessPolicy{Permission: to.Ptr("lr")}},
	} {
		_, err = sh.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{ShareACL: []*share.SignedIdentifier{bad}})
		wantCode(t, err, http.StatusBadRequest, "InvalidXmlDocument")
	}
}

func TestShareStatsAndQuota(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := svc.NewShareClient("stats")
	_, err := sh.Create(ctx, &share.CreateOptions{Quota: to.Ptr(int32(1))})
	must(t, err)
	root := sh.NewRootDirectoryClient()
	_, err = root.NewFileClient("a").Create(ctx, 1000, nil)
	must(t, err)
	_, err = root.NewFileClient("b").Create(ctx, 24, nil)
	must(t, err)
	stats, err := sh.GetStatistics(ctx, nil)
	must(t, err)
	if *stats.ShareUsageBytes != 1024 {
		t.Fatalf("usage = %d, want 1024", *stats.ShareUsageBytes)
	}
	// A 1 GiB quota holds 1 GiB: one more byte is refused.
	_, err = root.NewFileClient("c").Create(ctx, 1<<30-1024, nil)
	must(t, err)
	_, err = root.NewFileClient("d").Create(ctx, 1, nil)
	wantCode(t, err, http.StatusRequestEntityTooLarge, "ShareSizeLimitReached")
	_, err = root.NewFileClient("a").Resize(ctx, 1001, nil)
	wantCode(t, err, http.StatusRequestEntityTooLarge, "ShareSizeLimitReached")
	_, err = root.NewFileClient("c").Delete(ctx, nil)
	must(t, err)
	stats, err = sh.GetStatistics(ctx, nil)
	must(t, err)
	if *stats.ShareUsageBytes != 1024 {
		t.Fatalf("usage after delete = %d, want 1024", *stats.ShareUsageBytes)
	}
}

func TestDeleteShare(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "doomed")
	_, err := sh.NewRootDirectoryClient().NewFileClient("f").Create(ctx, 10, nil)
	must(t, err)
	_, err = sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = sh.Delete(ctx, nil)
	wantCode(t, err, http.StatusConflict, "ShareHasSnapshots")
	_, err = sh.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)})
	must(t, err)
	_, err = sh.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ShareNotFound")
	// A repeat Delete within Azure's asynchronous deletion is accepted
	// (the recorded TestShareReleaseLease deletes twice).
	_, err = sh.Delete(ctx, nil)
	must(t, err)
	// The name is free again, and the new share is empty.
	_, err = sh.Create(ctx, nil)
	must(t, err)
	_, err = sh.NewRootDirectoryClient().NewFileClient("f").GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
}

func TestListShares(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	for i := range 7 {
		sh := newShare(t, svc, fmt.Sprintf("list-%02d", i))
		if i == 3 {
			_, err := sh.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
			must(t, err)
			_, err = sh.CreateSnapshot(ctx, nil)
			must(t, err)
		}
	}
	newShare(t, svc, "other")
	var names []string
	pages := 0
	pager := svc.NewListSharesPager(&service.ListSharesOptions{Prefix: to.Ptr("list-"), MaxResults: to.Ptr(int32(3)),
		Include: service.ListSharesInclude{Metadata: true, Snapshots: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err)
		pages++
		for _, s := range page.Shares {
			name := *s.Name
			if s.Snapshot != nil {
				name += "@snapshot"
			}
			if *s.Name == "list-03" && s.Snapshot == nil && meta(s.Metadata, "k") != "v" {
				t.Errorf("list-03 metadata = %v", s.Metadata)
			}
			names = append(names, name)
		}
	}
	want := []string{"list-00", "list-01", "list-02", "list-03", "list-03@snapshot", "list-04", "list-05", "list-06"}
	if fmt.Sprint(names) != fmt.Sprint(want) || pages != 3 {
		t.Fatalf("listed %v in %d pages, want %v in 3", names, pages, want)
	}
	_, err := svc.NewListSharesPager(&service.ListSharesOptions{MaxResults: to.Ptr(int32(0))}).NextPage(ctx)
	wantCode(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
}

func TestShareSnapshots(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "snaps")
	f := sh.NewRootDirectoryClient().NewFileClient("f.txt")
	_, err := f.Create(ctx, 5, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("first")), nil)
	must(t, err)
	snap, err := sh.CreateSnapshot(ctx, &share.CreateSnapshotOptions{Metadata: map[string]*string{"at": to.Ptr("one")}})
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("later")), nil)
	must(t, err)

	old, err := sh.WithSnapshot(*snap.Snapshot)
	must(t, err)
	if got := download(t, old.NewRootDirectoryClient().NewFileClient("f.txt")); got != "first" {
		t.Fatalf("snapshot reads %q, want first", got)
	}
	if got := download(t, f); got != "later" {
		t.Fatalf("share reads %q, want later", got)
	}
	listing, err := old.NewRootDirectoryClient().NewListFilesAndDirectoriesPager(nil).NextPage(ctx)
	must(t, err)
	if len(listing.Segment.Files) != 1 || *listing.Segment.Files[0].Name != "f.txt" || *listing.ShareSnapshot != *snap.Snapshot {
		t.Fatalf("snapshot listing: %+v", listing)
	}
	_, err = old.NewRootDirectoryClient().GetProperties(ctx, nil)
	must(t, err)
	props, err := old.GetProperties(ctx, nil)
	must(t, err)
	if meta(props.Metadata, "at") != "one" {
		t.Errorf("snapshot metadata = %v", props.Metadata)
	}
	// Snapshots are read-only.
	_, err = old.NewRootDirectoryClient().NewFileClient("f.txt").UploadRange(ctx, 0, streamOf([]byte("nope!")), nil)
	wantCode(t, err, http.StatusBadRequest, "ShareSnapshotOperationNotSupported")
	_, err = old.NewRootDirectoryClient().NewSubdirectoryClient("d").Create(ctx, nil)
	wantCode(t, err, http.StatusBadRequest, "ShareSnapshotOperationNotSupported")
	// Snapshot Share ignores sharesnapshot: a snapshot of a snapshot is a
	// snapshot of the share as it is now (the SDK's recorded
	// TestShareCreateSnapshotNegativeSnapshotOfSnapshot).
	again, err := old.CreateSnapshot(ctx, nil)
	must(t, err)
	fromAgain, err := sh.WithSnapshot(*again.Snapshot)
	must(t, err)
	if got := download(t, fromAgain.NewRootDirectoryClient().NewFileClient("f.txt")); got != "later" {
		t.Fatalf("snapshot taken through a snapshot reads %q, want the share's later", got)
	}
	_, err = sh.Delete(ctx, &share.DeleteOptions{ShareSnapshot: again.Snapshot})
	must(t, err)
	// Deleting the file leaves the snapshot's copy readable.
	_, err = f.Delete(ctx, nil)
	must(t, err)
	if got := download(t, old.NewRootDirectoryClient().NewFileClient("f.txt")); got != "first" {
		t.Fatalf("snapshot after delete reads %q", got)
	}
	missing, err := sh.WithSnapshot("2001-01-01T00:00:00.0000000Z")
	must(t, err)
	_, err = missing.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ShareSnapshotNotFound")
	_, err = sh.Delete(ctx, &share.DeleteOptions{ShareSnapshot: snap.Snapshot})
	must(t, err)
	_, err = old.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ShareSnapshotNotFound")
}

func download(t *testing.T, f *file.Client) string {
	t.Helper()
	resp, err := f.DownloadStream(ctx, nil)
	must(t, err)
	defer resp.Body.Close()
	b := make([]byte, 0, 64)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			break
		}
	}
	return string(b)
}
