package file_test

import (
	"fmt"
	"net/http"
	"testing"

	sdkfile "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// leaseFixture drives Lease File over raw HTTP, where every header of the
// "Lease File" page's tables can be sent as written (the SDK always proposes
// an ID on acquire).
type leaseFixture struct {
	t    *testing.T
	in   *lazulitest.Instance
	path string
}

func (lf leaseFixture) do(method, query string, h map[string]string) *http.Response {
	header := http.Header{}
	for k, v := range h {
		if v != "" {
			header.Set(k, v)
		}
	}
	return rawRequest(lf.t, lf.in, method, lf.path, query, header, "")
}

func (lf leaseFixture) lease(action, id, proposed string) *http.Response {
	h := map[string]string{"x-ms-lease-action": action, "x-ms-lease-id": id, "x-ms-proposed-lease-id": proposed}
	if action == "acquire" {
		h["x-ms-lease-duration"] = "-1"
	}
	return lf.do(http.MethodPut, "comp=lease", h)
}

// state returns the file's lease state and, through a write with each
// candidate ID, which ID holds it.
func (lf leaseFixture) state() string {
	resp := lf.do(http.MethodHead, "", nil)
	st := resp.Header.Get("x-ms-lease-state")
	if st != "leased" {
		return st
	}
	for _, id := range []string{leaseA, leaseB, leaseC} {
		if lf.do(http.MethodPut, "comp=metadata", map[string]string{"x-ms-lease-id": id}).StatusCode == http.StatusOK {
			return "leased(" + id[:1] + ")"
		}
	}
	return "leased(X)"
}

// prepare puts a fresh file in one of the table's states.
func prepare(t *testing.T, in *lazulitest.Instance, n int, state string) leaseFixture {
	lf := leaseFixture{t: t, in: in, path: fmt.Sprintf("leases/f%d", n)}
	if resp := lf.do(http.MethodPut, "", map[string]string{"x-ms-type": "file", "x-ms-content-length": "10"}); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	switch state {
	case "leased":
		lf.lease("acquire", "", leaseA)
	case "broken":
		lf.lease("acquire", "", leaseA)
		lf.lease("break", "", "")
	}
	return lf
}

// TestFileLeaseActions checks every cell of the lease-operation table of
// the Azure reference page "Lease File" (learn.microsoft.com/rest/api/storageservices/lease-file).
func TestFileLeaseActions(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	newShare(t, svc, "leases")
	type cell struct {
		status int
		state  string // resulting state; "" when the action fails
	}
	rows := []struct {
		name         string
		action       string
		id, proposed string
		cells        map[string]cell
	}{
		{"acquire, no proposed ID", "acquire", "", "", map[string]cell{
			"available": {201, "leased(X)"}, "leased": {409, ""}, "broken": {201, "leased(X)"}}},
		{"acquire (A)", "acquire", "", leaseA, map[string]cell{
			"available": {201, "leased(a)"}, "leased": {201, "leased(a)"}, "broken": {201, "leased(a)"}}},
		{"acquire (B)", "acquire", "", leaseB, map[string]cell{
			"available": {201, "leased(b)"}, "leased": {409, ""}, "broken": {201, "leased(b)"}}},
		{"break", "break", "", "", map[string]cell{
			"available": {409, ""}, "leased": {202, "broken"}, "broken": {202, "broken"}}},
		{"change (A)->(B)", "change", leaseA, leaseB, map[string]cell{
			"available": {409, ""}, "leased": {200, "leased(b)"}, "broken": {409, ""}}},
		{"change (B)->(A)", "change", leaseB, leaseA, map[string]cell{
			"available": {409, ""}, "leased": {200, "leased(a)"}, "broken": {409, ""}}},
		{"change (B)->(C)", "change", leaseB, leaseC, map[string]cell{
			"available": {409, ""}, "leased": {409, ""}, "broken": {409, ""}}},
		{"release (A)", "release", leaseA, "", map[string]cell{
			"available": {409, ""}, "leased": {200, "available"}, "broken": {200, "available"}}},
		{"release (B)", "release", leaseB, "", map[string]cell{
			"available": {409, ""}, "leased": {409, ""}, "broken": {409, ""}}},
	}
	n := 0
	for _, row := range rows {
		for _, state := range []string{"available", "leased", "broken"} {
			n++
			want := row.cells[state]
			lf := prepare(t, in, n, state)
			resp := lf.lease(row.action, row.id, row.proposed)
			if resp.StatusCode != want.status {
				t.Errorf("%s on %s: status %d (%s), want %d", row.name, state, resp.StatusCode, resp.Header.Get("x-ms-error-code"), want.status)
				continue
			}
			if row.action == "break" && want.status == 202 && resp.Header.Get("x-ms-lease-time") != "0" {
				t.Errorf("%s on %s: x-ms-lease-time %q, want 0", row.name, state, resp.Header.Get("x-ms-lease-time"))
			}
			if want.state != "" {
				if got := lf.state(); got != want.state {
					t.Errorf("%s on %s: state %s, want %s", row.name, state, got, want.state)
				}
			}
		}
	}
	// Only infinite leases exist for files, and there is no renew.
	lf := prepare(t, in, 1000, "available")
	resp := lf.do(http.MethodPut, "comp=lease", map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "15"})
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "InvalidHeaderValue" {
		t.Errorf("finite file lease: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	resp = lf.do(http.MethodPut, "comp=lease", map[string]string{"x-ms-lease-action": "renew", "x-ms-lease-id": leaseA})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("renew of a file lease: %d", resp.StatusCode)
	}
}

// TestFileLeaseUse checks the use table of the "Lease File" page
// (learn.microsoft.com/rest/api/storageservices/lease-file): writes need the lease ID (412
// otherwise), reads do not, and a wrong ID is 412 (the real service's
// answer, which its error-code table gives where the page's table says 409).
func TestFileLeaseUse(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	newShare(t, svc, "leases")
	rows := []struct {
		name   string
		method string
		query  string
		id     string
		want   map[string]int
	}{
		{"write with (A)", http.MethodPut, "comp=metadata", leaseA, map[string]int{"available": 412, "leased": 200, "broken": 412}},
		{"write with (B)", http.MethodPut, "comp=metadata", leaseB, map[string]int{"available": 412, "leased": 412, "broken": 412}},
		{"write, no ID", http.MethodPut, "comp=metadata", "", map[string]int{"available": 200, "leased": 412, "broken": 200}},
		{"read with (A)", http.MethodGet, "", leaseA, map[string]int{"available": 412, "leased": 200, "broken": 412}},
		{"read with (B)", http.MethodGet, "", leaseB, map[string]int{"available": 412, "leased": 412, "broken": 412}},
		{"read, no ID", http.MethodGet, "", "", map[string]int{"available": 200, "leased": 200, "broken": 200}},
	}
	n := 0
	for _, row := range rows {
		for _, state := range []string{"available", "leased", "broken"} {
			n++
			lf := prepare(t, in, n, state)
			resp := lf.do(row.method, row.query, map[string]string{"x-ms-lease-id": row.id})
			if resp.StatusCode != row.want[state] {
				t.Errorf("%s on %s: %d %s, want %d", row.name, state, resp.StatusCode, resp.Header.Get("x-ms-error-code"), row.want[state])
			}
		}
	}
	// Every write operation needs the ID on a leased file; Delete Share
	// ignores file leases.
	lf := prepare(t, in, 500, "leased")
	for _, w := range []struct{ method, query string }{{http.MethodPut, ""}, {http.MethodPut, "comp=properties"},
		{http.MethodPut, "comp=range"}, {http.MethodDelete, ""}} {
		h := map[string]string{"x-ms-type": "file", "x-ms-content-length": "10", "x-ms-write": "clear", "x-ms-range": "bytes=0-1"}
		if resp := lf.do(w.method, w.query, h); resp.StatusCode != http.StatusPreconditionFailed || resp.Header.Get("x-ms-error-code") != "LeaseIdMissing" {
			t.Errorf("%s %s on a leased file: %d %s", w.method, w.query, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
	}
	if resp := lf.do(http.MethodDelete, "", map[string]string{"x-ms-lease-id": leaseA}); resp.StatusCode != http.StatusAccepted {
		t.Errorf("delete with the lease: %d", resp.StatusCode)
	}
	prepare(t, in, 501, "leased")
	if resp := rawRequest(t, in, http.MethodDelete, "leases", "restype=share", nil, ""); resp.StatusCode != http.StatusAccepted {
		t.Errorf("delete share with a leased file: %d", resp.StatusCode)
	}
}

func fileLease(t *testing.T, f *sdkfile.Client, id string) *lease.FileClient {
	t.Helper()
	lc, err := lease.NewFileClient(f, &lease.FileClientOptions{LeaseID: &id})
	must(t, err)
	return lc
}
