package dfs_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/sas"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// Every dfs operation against the callers its threat model names: a
// caller with no credentials, a holder of a SAS that lacks the letters
// the operation needs or is signed for another resource, and, as the
// control, a SAS with exactly one of those letters. The letters are the
// ones "Create a service SAS" gives each operation on a directory or file
// (r, a, c, w, d, l, m, e, o, p) and "Create an account SAS" on a blob
// service (srt s, c, o; accountNeeds); the routes declare them
// (routes.go, rows_update.go) and these cases hold them to it over a
// real socket.

// level is how high in the namespace a dfs operation acts.
type level int

const (
	onAccount level = iota
	onFilesystem
	onPath
)

// hostileCase is one dfs operation as a caller sends it.
type hostileCase struct {
	op    string
	level level
	// need are the SAS letters any one of which grants the operation.
	need string
	// noServiceSAS: no service SAS may call it, whatever its letters
	// (403 AuthorizationFailure), as for Create, Delete and Get/Set
	// Properties of a container.
	noServiceSAS bool
	// prepare readies a filesystem holding directory d with file d/f
	// (already made) and returns what request needs.
	prepare func(e *env, fs string) string
	request func(fs, arg string) hostileRequest
}

// hostileRequest is a request before its credentials: target is the
// filesystem or path it addresses (what a SAS of path scope is signed
// for), source a rename's source path.
type hostileRequest struct {
	method, target, query string
	header                http.Header
	body                  []byte
	source                string
}

// serviceLetters are the permission letters of a service SAS for Data
// Lake paths.
const serviceLetters = "racwdlmeop"

// pathReq and fsReq build the request of an operation on a path of the
// filesystem, or on the filesystem.
func pathReq(method, path, query string, header http.Header) func(fs, arg string) hostileRequest {
	return func(fs, _ string) hostileRequest {
		return hostileRequest{method: method, target: fs + "/" + path, query: query, header: header}
	}
}

func fsReq(method, query string, header http.Header) func(fs, arg string) hostileRequest {
	return func(fs, _ string) hostileRequest {
		return hostileRequest{method: method, target: fs, query: query, header: header}
	}
}

func hostileCases() []hostileCase {
	props := http.Header{"X-Ms-Properties": {"k=dg=="}}
	lease := func(action string) http.Header {
		return http.Header{"X-Ms-Lease-Action": {action}, "X-Ms-Lease-Duration": {"-1"},
			"X-Ms-Proposed-Lease-Id": {"5b6c2a3e-6c1f-4c52-9a87-3c4e0f9d1b2a"}}
	}
	return []hostileCase{
		{op: "ListFilesystems", level: onAccount, need: "l", request: func(string, string) hostileRequest {
			return hostileRequest{method: http.MethodGet, query: "resource=account"}
		}},
		{op: "CreateFilesystem", level: onFilesystem, need: "cw", noServiceSAS: true, request: func(fs, _ string) hostileRequest {
			return hostileRequest{method: http.MethodPut, target: fs + "new", query: "resource=filesystem"}
		}},
		{op: "DeleteFilesystem", level: onFilesystem, need: "d", noServiceSAS: true, request: fsReq(http.MethodDelete, "resource=filesystem", nil)},
		{op: "GetFilesystemProperties", level: onFilesystem, need: "r", noServiceSAS: true, request: fsReq(http.MethodHead, "resource=filesystem", nil)},
		{op: "SetFilesystemProperties", level: onFilesystem, need: "w", noServiceSAS: true, request: fsReq(http.MethodPatch, "resource=filesystem", props)},
		{op: "ListPaths", level: onFilesystem, need: "l", request: fsReq(http.MethodGet, "resource=filesystem&recursive=true", nil)},
		{op: "CreateFile", level: onPath, need: "cw", request: pathReq(http.MethodPut, "d/new", "resource=file", nil)},
		{op: "CreateDirectory", level: onPath, need: "cw", request: pathReq(http.MethodPut, "d/sub", "resource=directory", nil)},
		{op: "DeletePath", level: onPath, need: "d", request: pathReq(http.MethodDelete, "d/f", "recursive=false", nil)},
		{op: "GetPathStatus", level: onPath, need: "re", request: pathReq(http.MethodHead, "d/f", "action=getStatus", nil)},
		{op: "GetAccessControl", level: onPath, need: "re", request: pathReq(http.MethodHead, "d/f", "action=getAccessControl", nil)},
		{op: "SetAccessControl", level: onPath, need: "p", request: pathReq(http.MethodPatch, "d/f", "action=setAccessControl", http.Header{"X-Ms-Permissions": {"0750"}})},
		{op: "SetAccessControl(owner)", level: onPath, need: "o", request: pathReq(http.MethodPatch, "d/f", "action=setAccessControl", http.Header{"X-Ms-Owner": {someone}})},
		{op: "SetAccessControlRecursive", level: onPath, need: "p", request: pathReq(http.MethodPatch, "d", "action=setAccessControlRecursive&mode=modify", http.Header{"X-Ms-Acl": {"user::rwx"}})},
		{op: "SetPathProperties", level: onPath, need: "w", request: pathReq(http.MethodPatch, "d/f", "action=setProperties", props)},
		{op: "AppendData", level: onPath, need: "aw", request: func(fs, _ string) hostileRequest {
			return hostileRequest{method: http.MethodPatch, target: fs + "/d/f", query: "action=append&position=1", body: []byte("abc")}
		}},
		{op: "FlushData", level: onPath, need: "w", prepare: func(e *env, fs string) string {
			e.wantStatus(http.StatusAccepted)(e.raw(http.MethodPatch, fs+"/d/f?action=append&position=1", nil, []byte("abc")))
			return ""
		}, request: pathReq(http.MethodPatch, "d/f", "action=flush&position=4", nil)},
		{op: "LeasePath", level: onPath, need: "w", request: pathReq(http.MethodPost, "d/f", "", lease("acquire"))},
		{op: "BreakPathLease", level: onPath, need: "wd", prepare: func(e *env, fs string) string {
			e.wantStatus(http.StatusCreated)(e.raw(http.MethodPost, fs+"/d/f", lease("acquire"), nil))
			return ""
		}, request: pathReq(http.MethodPost, "d/f", "", lease("break"))},
		{op: "RenamePath", level: onPath, need: "m", request: func(fs, _ string) hostileRequest {
			return hostileRequest{method: http.MethodPut, target: fs + "/d/g", query: "mode=legacy", source: fs + "/d/f"}
		}},
		{op: "UndeletePath", level: onPath, need: "w", prepare: func(e *env, fs string) string {
			e.wantStatus(http.StatusOK)(e.raw(http.MethodDelete, fs+"/d/f?recursive=false", nil, nil))
			return e.deletionID(fs, "d/f")
		}, request: func(fs, id string) hostileRequest {
			return hostileRequest{method: http.MethodPut, target: fs + "/d/f", query: "comp=undelete",
				header: http.Header{"X-Ms-Undelete-Source": {"d/f?deletionid=" + id}}}
		}},
	}
}

// wantStatus returns a check that an answer has status.
func (e *env) wantStatus(status int) func(*http.Response, []byte) {
	return func(resp *http.Response, body []byte) {
		e.t.Helper()
		if resp.StatusCode != status {
			e.t.Fatalf("want %d, got %d %s", status, resp.StatusCode, body)
		}
	}
}

// deletionID is the deletion ID ListDeletedPaths gives path's soft
// deletion in filesystem fs.
func (e *env) deletionID(fs, path string) string {
	e.t.Helper()
	c, err := filesystem.NewClientWithSharedKeyCredential(e.url(fs), e.cred(), &filesystem.ClientOptions{ClientOptions: options()})
	if err != nil {
		e.t.Fatal(err)
	}
	id := e.deletedPaths(c)[path]
	if id == "" {
		e.t.Fatalf("%s/%s was not soft-deleted", fs, path)
	}
	return id
}

// credential is a way to sign a hostile request: sign returns the SAS
// query for a resource (a filesystem, or a path in it) with perms, or ""
// to send the request with no credentials.
type credential struct {
	name string
	sign func(e *env, fs, path, perms string) string
}

// serviceSAS signs a service SAS of perms: for the filesystem (sr=c), the
// path (sr=b) or the directory dir (sr=d with its sdd depth) when scope
// says so.
func serviceSAS(scope, dir string) credential {
	return credential{name: "service SAS sr=" + scope + dir, sign: func(e *env, fs, path, perms string) string {
		v := sas.DatalakeSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
			Permissions: perms, FileSystemName: fs}
		switch scope {
		case "b":
			v.FilePath = path
		case "d":
			v.DirectoryPath = dir
		}
		q, err := v.SignWithSharedKey(e.cred())
		if err != nil {
			e.t.Fatal(err)
		}
		return q.Encode()
	}}
}

// without is letters less those in need.
func without(letters, need string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(need, r) {
			return -1
		}
		return r
	}, letters)
}

// hostileEnv is a server with soft delete on (for Path - Undelete) that
// hands each attempt a filesystem of its own holding d/f.
type hostileEnv struct {
	*env
	n int
}

func (h *hostileEnv) fresh(c hostileCase) (fs, arg string) {
	h.n++
	fs = fmt.Sprintf("hostile%d", h.n)
	h.filesystem(fs)
	h.write(fs, "d/f", "x")
	if c.prepare != nil {
		arg = c.prepare(h.env, fs)
	}
	return fs, arg
}

// attempt sends c's request signed by cred with perms (each resource
// signed for as cred scopes it; the rename source's SAS rides in
// x-ms-rename-source, as the SDKs send it) and returns the answer.
func (h *hostileEnv) attempt(c hostileCase, cred credential, perms string) (*http.Response, []byte) {
	h.t.Helper()
	fs, arg := h.fresh(c)
	req := c.request(fs, arg)
	query := req.query
	sign := func(target string) string {
		if cred.sign == nil {
			return ""
		}
		fsName, path, _ := strings.Cut(target, "/")
		return cred.sign(h.env, fsName, path, perms)
	}
	if s := sign(req.target); s != "" {
		query = strings.TrimPrefix(query+"&"+s, "&")
	}
	header := http.Header{}
	for k, v := range req.header {
		header[k] = v
	}
	if req.source != "" {
		source := "/" + req.source
		if s := sign(req.source); s != "" {
			source += "?" + s
		}
		header.Set("X-Ms-Rename-Source", source)
	}
	if req.body != nil {
		header.Set("Content-Length", fmt.Sprint(len(req.body)))
	}
	return h.send(req.method, req.target+"?"+query, header, req.body, nil)
}

// wantRefused asserts a dfs error answer: the JSON error, or for a HEAD
// (no body) its x-ms-error-code.
func wantRefused(t *testing.T, method string, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	if method == http.MethodHead {
		if resp.StatusCode != status || resp.Header.Get("x-ms-error-code") != code {
			t.Fatalf("want %d %s, got %d %s", status, code, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
		return
	}
	wantJSONError(t, resp, body, status, code)
}

func wantGranted(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode >= 300 {
		t.Fatalf("want success, got %d %s %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"), body)
	}
}

// TestHostileCallers: for each dfs operation, no credentials is 401
// NoAuthenticationInformation (on the dfs endpoint a filesystem's public
// access opens nothing: azure-sdk-for-python issue 25476, get_paths of a
// container with public access answers an authentication error where
// its blobs download); a SAS without the operation's letters is 403
// AuthorizationPermissionMismatch, one for another directory 403
// AuthenticationFailed; and a SAS with one of the letters is granted.
func TestHostileCallers(t *testing.T) {
	h := &hostileEnv{env: start(t)}
	h.hostileCallers(t)
}

// TestHostileCallersOnDFSPort: the --dfsPort listener answers them as the
// Blob endpoint does.
func TestHostileCallersOnDFSPort(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}, Configure: func(c *config.Config) {
		c.HNSAccounts = []string{lazulitest.Account}
		c.DFSPort = 0
	}})
	h := &hostileEnv{env: &env{t: t, in: in, ctx: context.Background(), base: in.App.Endpoints["dfs"]}}
	if h.base == "" || h.base == in.BlobURL {
		t.Fatalf("dfs endpoint %q (blob %q)", h.base, in.BlobURL)
	}
	h.hostileCallers(t)
}

func (h *hostileEnv) hostileCallers(t *testing.T) {
	h.softDelete()
	for _, c := range hostileCases() {
		t.Run(c.op, func(t *testing.T) {
			h.t = t // the helpers fail the case that runs
			method := c.request("fs", "").method
			resp, body := h.attempt(c, credential{name: "anonymous"}, "")
			wantRefused(t, method, resp, body, http.StatusUnauthorized, "NoAuthenticationInformation")
			h.hostileSAS(c, method)
		})
	}
}

// hostileSAS runs c's SAS attempts, a subtest per kind of SAS.
func (h *hostileEnv) hostileSAS(c hostileCase, method string) {
	parent := h.t
	defer func() { h.t = parent }()
	if need, ok := accountNeeds[c.op]; ok {
		parent.Run(accountSAS.name, func(t *testing.T) {
			h.t = t
			h.accountAttempts(c, need, method)
		})
	}
	var creds []credential
	if c.level != onAccount {
		creds = append(creds, serviceSAS("c", ""))
	}
	if c.level == onPath {
		creds = append(creds, serviceSAS("b", ""), serviceSAS("d", "d"))
	}
	for _, cred := range creds {
		parent.Run(cred.name, func(t *testing.T) {
			h.t = t
			h.sasAttempts(c, cred, method)
		})
	}
	if c.level == onPath {
		// The directory a sr=d SAS covers is the request path's first sdd
		// segments, which its signature must name: one for another
		// directory does not match.
		parent.Run("service SAS sr=d of another directory", func(t *testing.T) {
			h.t = t
			resp, body := h.attempt(c, serviceSAS("d", "other"), serviceLetters)
			wantRefused(t, method, resp, body, http.StatusForbidden, "AuthenticationFailed")
		})
	}
}

// sasAttempts sends c signed by cred, a service SAS: with every letter
// but the ones c needs, then with each of those alone.
func (h *hostileEnv) sasAttempts(c hostileCase, cred credential, method string) {
	t := h.t
	if c.noServiceSAS {
		resp, body := h.attempt(c, cred, serviceLetters)
		wantRefused(t, method, resp, body, http.StatusForbidden, "AuthorizationFailure")
		return
	}
	resp, body := h.attempt(c, cred, without(serviceLetters, c.need))
	wantRefused(t, method, resp, body, http.StatusForbidden, "AuthorizationPermissionMismatch")
	for _, letter := range c.need {
		resp, body := h.attempt(c, cred, string(letter))
		wantGranted(t, resp, body)
	}
}

// TestAnonymousOnPublicFilesystem: a filesystem whose blobs and listing
// are public (x-ms-blob-public-access: container) still answers the dfs
// operations of a caller with no credentials 401, as the service does
// (azure-sdk-for-python issue 25476); its blobs read through the Blob API.
func TestAnonymousOnPublicFilesystem(t *testing.T) {
	h := &hostileEnv{env: start(t)}
	c := hostileCase{op: "public", request: fsReq(http.MethodGet, "resource=filesystem", nil)}
	fs, _ := h.fresh(c)
	h.wantStatus(http.StatusOK)(h.raw(http.MethodPut, fs+"?restype=container&comp=acl",
		http.Header{"X-Ms-Blob-Public-Access": {"container"}}, nil))
	resp, body := h.send(http.MethodGet, fs+"/d/f", nil, nil, nil)
	if resp.StatusCode != http.StatusOK || string(body) != "x" {
		t.Fatalf("public read of d/f: %d %s", resp.StatusCode, body)
	}
	for _, r := range []hostileRequest{
		{method: http.MethodGet, target: fs, query: "resource=filesystem&recursive=true"},
		{method: http.MethodHead, target: fs + "/d/f", query: "action=getStatus"},
		{method: http.MethodHead, target: fs + "/d/f", query: "action=getAccessControl"},
	} {
		resp, body := h.send(r.method, r.target+"?"+r.query, nil, nil, nil)
		wantRefused(t, r.method, resp, body, http.StatusUnauthorized, "NoAuthenticationInformation")
	}
}
