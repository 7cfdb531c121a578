package admin_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/fault"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/admin"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

const otherKey = "b3RoZXIta2V5LW90aGVyLWtleS1vdGhlci1rZXk="

// fill creates a container with a blob big enough to live in an extent,
// a queue and a table in account, through connection string cs.
func fill(t *testing.T, cs string) {
	t.Helper()
	ctx := context.Background()
	bc, err := azblob.NewClientFromConnectionString(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bc.CreateContainer(ctx, "data", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.UploadBuffer(ctx, "data", "big", bytes.Repeat([]byte("x"), 256<<10), nil); err != nil {
		t.Fatal(err)
	}
	tc, err := aztables.NewServiceClientFromConnectionString(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.CreateTable(ctx, "things", nil); err != nil {
		t.Fatal(err)
	}
}

// containers lists the containers of the account behind cs.
func containers(t *testing.T, cs string) []string {
	t.Helper()
	return listContainers(t, cs, nil)
}

// systemContainers lists the account's system containers too.
func systemContainers(t *testing.T, cs string) []string {
	t.Helper()
	return listContainers(t, cs, &azblob.ListContainersOptions{Include: azblob.ListContainersInclude{System: true}})
}

func listContainers(t *testing.T, cs string, opts *azblob.ListContainersOptions) []string {
	t.Helper()
	bc, _ := azblob.NewClientFromConnectionString(cs, nil)
	var names []string
	pager := bc.NewListContainersPager(opts)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.ContainerItems {
			names = append(names, *c.Name)
		}
	}
	return names
}

func extentRefs(t *testing.T, st store.Store) int {
	t.Helper()
	n := 0
	start := store.NewKey(store.SpaceExtentRef).Bytes()
	err := st.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan(start, store.PrefixEnd(start), store.ScanOptions{}, func(_, _ []byte) bool { n++; return true })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Resetting one account drops its data and the references of its extents
// and leaves the other account whole; resetting everything empties both.
func TestReset(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob", "table"}, Configure: func(c *config.Config) {
		accts, err := auth.ParseAccountsEnv(lazulitest.Account + ":" + lazulitest.Key + ";other:" + otherKey)
		if err != nil {
			t.Fatal(err)
		}
		c.Accounts = accts
	}})
	dev := in.ConnectionString
	other := strings.NewReplacer("AccountName="+lazulitest.Account, "AccountName=other", lazulitest.Key, otherKey,
		"/"+lazulitest.Account, "/other").Replace(dev)
	fill(t, dev)
	fill(t, other)
	if n := extentRefs(t, in.App.Store); n != 2 {
		t.Fatalf("%d referenced extents before the reset, want 2", n)
	}

	var answer struct {
		Account string
		Records int
	}
	call(t, in, "POST", "/reset?account="+lazulitest.Account, "", 200, &answer)
	if answer.Records == 0 {
		t.Fatalf("reset deleted no record: %+v", answer)
	}
	if got := containers(t, dev); len(got) != 0 {
		t.Fatalf("containers left after the reset: %v", got)
	}
	// Reset leaves the account as new, with its $logs system container.
	if got := systemContainers(t, dev); len(got) != 1 || got[0] != "$logs" {
		t.Fatalf("system containers after the reset: %v", got)
	}
	if got := containers(t, other); len(got) != 1 {
		t.Fatalf("the other account lost its containers: %v", got)
	}
	if n := extentRefs(t, in.App.Store); n != 1 {
		t.Fatalf("%d referenced extents after resetting one account, want 1", n)
	}
	// The account is usable again at once, with the same names.
	fill(t, dev)

	call(t, in, "POST", "/reset", "", 200, &answer)
	if len(containers(t, dev))+len(containers(t, other)) != 0 || extentRefs(t, in.App.Store) != 0 {
		t.Fatal("data left after resetting every account")
	}
	if got := systemContainers(t, other); len(got) != 1 || got[0] != "$logs" {
		t.Fatalf("system containers after resetting every account: %v", got)
	}
	call(t, in, "POST", "/reset?account=nobody", "", 404, nil)
}

// Callers from other hosts need the token; loopback callers do not.
func TestAdmission(t *testing.T) {
	for _, c := range []struct {
		token, remote, auth string
		want                int
	}{
		{"", "127.0.0.1:5000", "", 200},
		{"", "[::1]:5000", "", 200},
		{"", "192.0.2.7:5000", "", 403},
		{"s3cret", "192.0.2.7:5000", "", 403},
		{"s3cret", "192.0.2.7:5000", "Bearer wrong", 403},
		{"s3cret", "192.0.2.7:5000", "Bearer s3cret", 200},
		{"s3cret", "127.0.0.1:5000", "", 200},
		{"s3cret", "192.0.2.7:5000", "cookie s3cret", 200},
		{"s3cret", "192.0.2.7:5000", "cookie nope", 403},
		{"s3cret", "192.0.2.7:5000", "query s3cret", 200},
		{"s3cret", "192.0.2.7:5000", "query nope", 403},
	} {
		h := admin.New(admin.Options{Faults: &fault.Set{}, Token: c.token})
		req := httptest.NewRequest("GET", "/faults", nil)
		req.RemoteAddr, req.Host = c.remote, "localhost:10009"
		switch kind, value, _ := strings.Cut(c.auth, " "); kind {
		case "Bearer":
			req.Header.Set("Authorization", c.auth)
		case "cookie":
			req.AddCookie(&http.Cookie{Name: "lazuli_admin_token", Value: value})
		case "query":
			req = httptest.NewRequest("GET", "/faults?token="+value, nil)
			req.RemoteAddr, req.Host = c.remote, "localhost:10009"
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("token %q from %s with %q: %d, want %d", c.token, c.remote, c.auth, rec.Code, c.want)
		}
	}
}

// /healthz answers while serving; /readyz only while the store answers.
func TestHealthAndReadiness(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}})
	call(t, in, "GET", "/healthz", "", 200, nil)
	var ready struct{ Status string }
	call(t, in, "GET", "/readyz", "", 200, &ready)
	if ready.Status != "ready" {
		t.Fatalf("readyz %+v", ready)
	}
	if err := in.App.Store.Close(); err != nil {
		t.Fatal(err)
	}
	call(t, in, "GET", "/readyz", "", 503, &ready)
	call(t, in, "GET", "/healthz", "", 200, nil)
}
