package dfs

import (
	"net/http/httptest"
	"testing"
)

// TestIsRequest pins which requests the Blob endpoint hands to the dfs
// API: each marker on its own, and the Blob operations that look alike.
func TestIsRequest(t *testing.T) {
	for _, c := range []struct {
		name, method, target string
		header               map[string]string
		want                 bool
	}{
		{"list filesystems", "GET", "/acct?resource=account", nil, true},
		{"create filesystem", "PUT", "/acct/fs?resource=filesystem", nil, true},
		{"list paths", "GET", "/acct/fs?resource=filesystem&recursive=true", nil, true},
		{"set filesystem properties", "PATCH", "/acct/fs?resource=filesystem", nil, true},
		{"create file", "PUT", "/acct/fs/a/b?resource=file", nil, true},
		{"create directory", "PUT", "/acct/fs/a?resource=Directory", nil, true},
		{"rename", "PUT", "/acct/fs/b?mode=legacy", map[string]string{"x-ms-rename-source": "/fs/a"}, true},
		{"rename without mode", "PUT", "/acct/fs/b", map[string]string{"x-ms-rename-source": "/fs/a"}, true},
		{"append", "PATCH", "/acct/fs/f?action=append&position=0", nil, true},
		{"get status", "HEAD", "/acct/fs/f?action=getStatus", nil, true},
		{"access control recursive", "PATCH", "/acct/fs/d?action=setAccessControlRecursive&mode=set", nil, true},
		{"path lease", "PUT", "/acct/fs/f", map[string]string{"x-ms-lease-action": "acquire"}, true},
		{"delete directory", "DELETE", "/acct/fs/d?recursive=true", nil, true},
		{"delete page", "DELETE", "/acct/fs/d?continuation=abc", nil, true},
		{"delete paginated", "DELETE", "/acct/fs/d?paginated=true", nil, true},
		{"delete accepting json", "DELETE", "/acct/fs/f", map[string]string{"Accept": "application/json"}, true},
		{"delete blob accepting xml", "DELETE", "/acct/c/b", map[string]string{"Accept": "application/xml"}, false},
		{"delete snapshot accepting json", "DELETE", "/acct/c/b?snapshot=2020-01-01T00:00:00.0000000Z", map[string]string{"Accept": "application/json"}, false},
		{"delete container accepting json", "DELETE", "/acct/c?restype=container", map[string]string{"Accept": "application/json"}, false},

		{"blob lease", "PUT", "/acct/c/b?comp=lease", map[string]string{"x-ms-lease-action": "acquire"}, false},
		{"container lease", "PUT", "/acct/c?restype=container&comp=lease", map[string]string{"x-ms-lease-action": "acquire"}, false},
		{"put blob", "PUT", "/acct/c/b", map[string]string{"x-ms-blob-type": "BlockBlob"}, false},
		{"create container", "PUT", "/acct/c?restype=container", nil, false},
		{"unknown resource value", "PUT", "/acct/c/b?resource=blob", map[string]string{"x-ms-blob-type": "BlockBlob"}, false},
		{"path read", "GET", "/acct/fs/f", nil, false},
		{"get properties", "HEAD", "/acct/fs/f", nil, false},
		{"delete blob", "DELETE", "/acct/c/b", nil, false},
		{"list containers", "GET", "/acct?comp=list", nil, false},
		{"get with recursive", "GET", "/acct/c/b?recursive=true", nil, false},
	} {
		r := httptest.NewRequest(c.method, c.target, nil)
		for k, v := range c.header {
			r.Header.Set(k, v)
		}
		if got := IsRequest(r); got != c.want {
			t.Errorf("%s: %s %s: IsRequest %v, want %v", c.name, c.method, c.target, got, c.want)
		}
	}
}
