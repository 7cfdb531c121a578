package dfs_test

import (
	"net/http"
	"strings"
	"testing"
)

// renameWith sends a rename of fs/d/f to fs/d/g signed with destSAS (""
// for Shared Key), naming the source with sourceSAS appended when given.
func (e *env) renameWith(fs, destSAS, sourceSAS string) (*http.Response, []byte) {
	e.t.Helper()
	source := "/" + fs + "/d/f"
	if sourceSAS != "" {
		source += "?" + sourceSAS
	}
	header := http.Header{"X-Ms-Rename-Source": {source}}
	if destSAS == "" {
		return e.raw(http.MethodPut, fs+"/d/g?mode=legacy", header, nil)
	}
	return e.send(http.MethodPut, fs+"/d/g?mode=legacy&"+destSAS, header, nil, nil)
}

// The source of a rename is authorized by the SAS x-ms-rename-source
// carries, with m on the source, whatever the destination's SAS grants:
// a request signed with a SAS whose source has none moves nothing
// (azure-sdk-for-java issues 10301 and 25714), and a source SAS without
// m, for another path, expired or forged is refused. Shared Key needs no
// source SAS.
func TestRenameSourceSAS(t *testing.T) {
	h := &hostileEnv{env: start(t)}
	fileSAS, dirSAS := serviceSAS("b", ""), serviceSAS("d", "d")
	move := func(fs, path string) string { return fileSAS.sign(h.env, fs, path, "m") }
	refusals := []struct {
		name      string
		sourceSAS func(fs string) string
		status    int
		code      string
	}{
		{"no source SAS", func(string) string { return "" }, http.StatusForbidden, "AuthorizationPermissionMismatch"},
		{"source SAS without m", func(fs string) string { return fileSAS.sign(h.env, fs, "d/f", "rwdc") }, http.StatusForbidden, "AuthorizationPermissionMismatch"},
		{"source SAS of another path", func(fs string) string { return move(fs, "d/x") }, http.StatusForbidden, "AuthenticationFailed"},
		{"forged source SAS", func(fs string) string {
			return strings.Replace(move(fs, "d/f"), "sp=m", "sp=rm", 1)
		}, http.StatusForbidden, "AuthenticationFailed"},
		{"source SAS of another directory", func(fs string) string {
			return serviceSAS("d", "e").sign(h.env, fs, "e", "m")
		}, http.StatusForbidden, "AuthenticationFailed"},
	}
	for _, c := range refusals {
		fs, _ := h.fresh(hostileCase{})
		resp, body := h.renameWith(fs, move(fs, "d/g"), c.sourceSAS(fs))
		wantJSONError(t, resp, body, c.status, c.code)
		if got := h.status(fs + "/d/f"); got != "file" {
			t.Fatalf("%s: the source is %s after a refused rename", c.name, got)
		}
	}

	fs, _ := h.fresh(hostileCase{})
	h.wantStatus(http.StatusCreated)(h.renameWith(fs, move(fs, "d/g"), move(fs, "d/f")))
	fs, _ = h.fresh(hostileCase{})
	sas := dirSAS.sign(h.env, fs, "", "m")
	h.wantStatus(http.StatusCreated)(h.renameWith(fs, sas, sas))
	fs, _ = h.fresh(hostileCase{})
	h.wantStatus(http.StatusCreated)(h.renameWith(fs, "", ""))
	if got := h.status(fs + "/d/g"); got != "file" {
		t.Fatalf("renamed file: %s", got)
	}
}

// A source in another filesystem is authorized by its own filesystem's
// SAS, the destination by its own: neither reaches the other.
func TestRenameAcrossFilesystemsSAS(t *testing.T) {
	h := &hostileEnv{env: start(t)}
	fsSAS := serviceSAS("c", "")
	src, _ := h.fresh(hostileCase{})
	dst, _ := h.fresh(hostileCase{})
	destSAS := fsSAS.sign(h.env, dst, "", "m")
	header := func(sas string) http.Header {
		return http.Header{"X-Ms-Rename-Source": {"/" + src + "/d/f?" + sas}}
	}
	resp, body := h.send(http.MethodPut, dst+"/d/g?mode=legacy&"+destSAS, header(destSAS), nil, nil)
	wantJSONError(t, resp, body, http.StatusForbidden, "AuthenticationFailed")
	h.wantStatus(http.StatusCreated)(h.send(http.MethodPut, dst+"/d/g?mode=legacy&"+destSAS,
		header(fsSAS.sign(h.env, src, "", "m")), nil, nil))
	if h.status(src+"/d/f") == "file" || h.status(dst+"/d/g") != "file" {
		t.Fatal("the file did not move across filesystems")
	}
}
