package dfs_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// TestRenameWithoutAccountSegment: the JavaScript DataLake SDK's move
// sends its rename to http://host:port/filesystem/path, without the
// emulator URL's account segment, and names the source with it; the
// account is taken from the source and the rename signed for it served.
func TestRenameWithoutAccountSegment(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.write("lake", "src/x", "hello")
	host := strings.TrimSuffix(strings.TrimSuffix(e.in.BlobURL, "/"), "/"+lazulitest.Account)
	req, err := http.NewRequest("PUT", host+"/lake/moved?mode=legacy", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-rename-source", "/"+lazulitest.Account+"/lake/src")
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("rename: %d %v", resp.StatusCode, resp.Header)
	}
	if got := e.content("lake", "moved/x"); got != "hello" {
		t.Fatalf("moved file reads %q", got)
	}
}
