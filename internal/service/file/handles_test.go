package file_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/service/file"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

func openHandle(t *testing.T, in *lazulitest.Instance, share, path string, o smbstate.Open) {
	t.Helper()
	if o.OpenTime.IsZero() {
		o.OpenTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	if o.ClientIP == "" {
		o.ClientIP = "10.0.0.5:49152"
	}
	must(t, file.OpenHandle(in.App.Store, lazulitest.Account, share, path, o))
}

// restOp is one FileREST operation run over raw HTTP against a file.
type restOp struct {
	name          string
	method, query string
	header        map[string]string
}

var fileOps = []restOp{
	{"Create File", http.MethodPut, "", map[string]string{"x-ms-type": "file", "x-ms-content-length": "16"}},
	{"Get File", http.MethodGet, "", nil},
	{"Set File Properties", http.MethodPut, "comp=properties", nil},
	{"Set File Metadata", http.MethodPut, "comp=metadata", nil},
	{"Delete File", http.MethodDelete, "", nil},
	{"Put Range", http.MethodPut, "comp=range", map[string]string{"x-ms-write": "clear", "x-ms-range": "bytes=0-3"}},
	{"List Ranges", http.MethodGet, "comp=rangelist", nil},
	{"Lease File", http.MethodPut, "comp=lease", map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1"}},
}

func (op restOp) run(t *testing.T, in *lazulitest.Instance, path string) *http.Response {
	h := http.Header{}
	for k, v := range op.header {
		h.Set(k, v)
	}
	return rawRequest(t, in, op.method, path, op.query, h, "")
}

// TestSharingViolationTable opens a file over "SMB" for read/write with
// each share mode and runs each FileREST operation of the Azure reference
// page "Managing file locks" (learn.microsoft.com/rest/api/storageservices/managing-file-locks) against
// it: those the share mode does not allow fail 409 SharingViolation, the
// others succeed.
func TestSharingViolationTable(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	newShare(t, svc, "locks")
	rows := []struct {
		mode  string
		share smbstate.ShareMode
		fail  map[string]bool
	}{
		{"None", smbstate.ShareNone, set("Create File", "Get File", "Set File Properties", "Set File Metadata", "Delete File", "Put Range", "List Ranges", "Lease File")},
		{"Shared Read", smbstate.ShareRead, set("Create File", "Set File Properties", "Set File Metadata", "Delete File", "Put Range", "Lease File")},
		{"Shared Write", smbstate.ShareWrite, set("Create File", "Get File", "Delete File", "List Ranges", "Lease File")},
		{"Shared Delete", smbstate.ShareDelete, set("Create File", "Get File", "Set File Properties", "Set File Metadata", "Delete File", "Put Range", "List Ranges", "Lease File")},
		{"Shared Read/Write", smbstate.ShareRead | smbstate.ShareWrite, set("Create File", "Delete File", "Lease File")},
		{"Shared Read/Delete", smbstate.ShareRead | smbstate.ShareDelete, set("Create File", "Set File Properties", "Set File Metadata", "Delete File", "Put Range", "Lease File")},
		{"Shared Write/Delete", smbstate.ShareWrite | smbstate.ShareDelete, set("Get File", "Delete File", "List Ranges", "Lease File")},
		{"Shared Read/Write/Delete", smbstate.ShareAll, set("Delete File", "Lease File")},
	}
	n := 0
	for _, row := range rows {
		for _, op := range fileOps {
			n++
			path := fmt.Sprintf("locks/f%d", n)
			if resp := rawRequest(t, in, http.MethodPut, path, "", http.Header{"X-Ms-Type": {"file"}, "X-Ms-Content-Length": {"16"}}, ""); resp.StatusCode != http.StatusCreated {
				t.Fatalf("create %s: %d", path, resp.StatusCode)
			}
			openHandle(t, in, "locks", fmt.Sprintf("f%d", n), smbstate.Open{HandleID: uint64(n), Access: smbstate.Read | smbstate.Write, Share: row.share})
			resp := op.run(t, in, path)
			code := resp.Header.Get("x-ms-error-code")
			if row.fail[op.name] {
				if resp.StatusCode != http.StatusConflict || code != "SharingViolation" {
					t.Errorf("%s / %s: %d %s, want 409 SharingViolation", row.mode, op.name, resp.StatusCode, code)
				}
			} else if resp.StatusCode >= 300 {
				t.Errorf("%s / %s: %d %s, want success", row.mode, op.name, resp.StatusCode, code)
			}
		}
	}
	// Operations that need no access succeed even beside an exclusive open.
	path := "locks/exclusive"
	rawRequest(t, in, http.MethodPut, path, "", http.Header{"X-Ms-Type": {"file"}, "X-Ms-Content-Length": {"1"}}, "")
	openHandle(t, in, "locks", "exclusive", smbstate.Open{HandleID: 999, Access: smbstate.Read | smbstate.Write | smbstate.Delete, Share: smbstate.ShareNone})
	for _, q := range []struct{ method, query string }{{http.MethodHead, ""}, {http.MethodGet, "comp=metadata"}} {
		if resp := rawRequest(t, in, q.method, path, q.query, nil, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s beside an exclusive open: %d", q.method, q.query, resp.StatusCode)
		}
	}
	if resp := rawRequest(t, in, http.MethodGet, "locks", "restype=directory&comp=list", nil, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("list beside an exclusive open: %d", resp.StatusCode)
	}
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

func TestDeletePending(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "pending")
	root := sh.NewRootDirectoryClient()
	f := root.NewFileClient("going")
	_, err := f.Create(ctx, 10, nil)
	must(t, err)
	_, err = root.NewFileClient("staying").Create(ctx, 10, nil)
	must(t, err)
	openHandle(t, in, "pending", "going", smbstate.Open{HandleID: 7, Access: smbstate.Delete, Share: smbstate.ShareAll})
	must(t, file.MarkDeletePending(in.App.Store, lazulitest.Account, "pending", "going", true))
	for _, op := range fileOps {
		resp := op.run(t, in, "pending/going")
		if resp.StatusCode != http.StatusConflict || resp.Header.Get("x-ms-error-code") != "DeletePending" {
			t.Errorf("%s on a delete-pending file: %d %s", op.name, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
	}
	_, err = f.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusConflict, "DeletePending")
	page, err := root.NewListFilesAndDirectoriesPager(nil).NextPage(ctx)
	must(t, err)
	if len(page.Segment.Files) != 1 || *page.Segment.Files[0].Name != "staying" {
		t.Fatalf("listing shows the pending file: %+v", page.Segment.Files)
	}
	// Closing the last handle completes the SMB delete.
	closed, err := f.ForceCloseHandles(ctx, "7", nil)
	must(t, err)
	if *closed.NumberOfHandlesClosed != 1 {
		t.Fatalf("closed %d", *closed.NumberOfHandlesClosed)
	}
	_, err = f.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	stats, err := sh.GetStatistics(ctx, nil)
	must(t, err)
	if *stats.ShareUsageBytes != 10 {
		t.Errorf("usage after the SMB delete = %d, want 10", *stats.ShareUsageBytes)
	}
}

func TestListAndForceCloseHandles(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "handles")
	dir := sh.NewDirectoryClient("Dir")
	_, err := dir.Create(ctx, nil)
	must(t, err)
	_, err = dir.NewSubdirectoryClient("Sub").Create(ctx, nil)
	must(t, err)
	a := dir.NewFileClient("A.txt")
	_, err = a.Create(ctx, 1, nil)
	must(t, err)
	deep := dir.NewSubdirectoryClient("Sub").NewFileClient("deep.bin")
	_, err = deep.Create(ctx, 1, nil)
	must(t, err)
	openHandle(t, in, "handles", "Dir/A.txt", smbstate.Open{HandleID: 11, SessionID: 5, ClientName: "laptop", Access: smbstate.Read | smbstate.Write})
	openHandle(t, in, "handles", "Dir/A.txt", smbstate.Open{HandleID: 12, SessionID: 5, Access: smbstate.Read})
	openHandle(t, in, "handles", "dir/sub/deep.bin", smbstate.Open{HandleID: 13, SessionID: 6, Access: smbstate.Delete})
	openHandle(t, in, "handles", "Dir", smbstate.Open{HandleID: 14, SessionID: 6, Access: smbstate.Read})

	got, err := a.ListHandles(ctx, nil)
	must(t, err)
	if len(got.Handles) != 2 || *got.Handles[0].ID != "11" || *got.Handles[0].Path != "Dir/A.txt" ||
		*got.Handles[0].SessionID != "5" || *got.Handles[0].ClientName != "laptop" || *got.Handles[0].ClientIP != "10.0.0.5:49152" {
		t.Fatalf("file handles: %+v", got.Handles)
	}
	if len(got.Handles[0].AccessRightList) != 2 || *got.Handles[0].AccessRightList[1] != "Write" {
		t.Errorf("access rights: %v", got.Handles[0].AccessRightList)
	}
	props, err := a.GetProperties(ctx, nil)
	must(t, err)
	if *got.Handles[0].FileID != *props.ID || got.Handles[0].OpenTime == nil {
		t.Errorf("handle file id %s, file %s", *got.Handles[0].FileID, *props.ID)
	}
	flat, err := dir.ListHandles(ctx, nil)
	must(t, err)
	if ids := handleIDs(flat.Handles); ids != "[14 11 12]" {
		t.Errorf("directory handles (not recursive): %s", ids)
	}
	var all []string
	marker := (*string)(nil)
	for pages := 0; ; pages++ {
		page, err := sh.NewRootDirectoryClient().ListHandles(ctx, &directory.ListHandlesOptions{Recursive: to.Ptr(true), MaxResults: to.Ptr(int32(1)), Marker: marker})
		must(t, err)
		for _, h := range page.Handles {
			all = append(all, *h.Path)
		}
		if page.NextMarker == nil || *page.NextMarker == "" {
			break
		}
		marker = page.NextMarker
		if pages > 10 {
			t.Fatal("handle listing does not end")
		}
	}
	if fmt.Sprint(all) != "[Dir Dir/A.txt Dir/A.txt Dir/Sub/deep.bin]" {
		t.Errorf("recursive handles across pages: %v", all)
	}
	_, err = a.ForceCloseHandles(ctx, "404", nil)
	must(t, err)
	closed, err := a.ForceCloseHandles(ctx, "12", nil)
	must(t, err)
	if *closed.NumberOfHandlesClosed != 1 || *closed.NumberOfHandlesFailedToClose != 0 {
		t.Errorf("closed %d failed %d", *closed.NumberOfHandlesClosed, *closed.NumberOfHandlesFailedToClose)
	}
	closedAll, err := sh.NewRootDirectoryClient().ForceCloseHandles(ctx, "*", &directory.ForceCloseHandlesOptions{Recursive: to.Ptr(true)})
	must(t, err)
	if *closedAll.NumberOfHandlesClosed != 3 {
		t.Errorf("closed %d, want 3", *closedAll.NumberOfHandlesClosed)
	}
	left, err := sh.NewRootDirectoryClient().ListHandles(ctx, &directory.ListHandlesOptions{Recursive: to.Ptr(true)})
	must(t, err)
	if len(left.Handles) != 0 {
		t.Errorf("handles left: %v", handleIDs(left.Handles))
	}
	resp := rawRequest(t, in, http.MethodPut, "handles/Dir/A.txt", "comp=forceclosehandles", http.Header{"X-Ms-Handle-Id": {"*"}, "X-Ms-Recursive": {"true"}}, "")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("recursive force close on a file: %d", resp.StatusCode)
	}
}

func handleIDs(hs []*directory.Handle) string {
	var ids []string
	for _, h := range hs {
		ids = append(ids, *h.ID)
	}
	return fmt.Sprint(ids)
}
