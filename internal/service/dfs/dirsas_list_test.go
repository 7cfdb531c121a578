package dfs_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// A directory SAS (sr=d) with l lists its own directory through List Paths,
// which names the directory in ?directory= rather than in the path, as
// Hadoop's ABFS driver lists with one ("Create a service SAS": sr=d grants
// access to the directory's contents). It reaches nothing outside it.
func TestDirectorySASListsItsDirectory(t *testing.T) {
	e := start(t)
	e.wantStatus(http.StatusCreated)(e.raw(http.MethodPut, "lake?resource=filesystem", nil, nil))
	for _, p := range []string{"d/f", "d/sub/g", "other/h"} {
		e.wantStatus(http.StatusCreated)(e.raw(http.MethodPut, "lake/"+p+"?resource=file", nil, nil))
	}
	list := func(query, perms string) (*http.Response, []byte) {
		sas := serviceSAS("d", "d").sign(e, "lake", "", perms)
		return e.send(http.MethodGet, "lake?resource=filesystem&recursive=true&"+query+"&"+sas, nil, nil, nil)
	}

	resp, body := list("directory=d", "l")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listing its directory: %d %s", resp.StatusCode, body)
	}
	var listed struct {
		Paths []struct{ Name string } `json:"paths"`
	}
	if err := json.Unmarshal(body, &listed); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range listed.Paths {
		names = append(names, p.Name)
	}
	if got := len(names); got != 3 || names[0] != "d/f" || names[1] != "d/sub" || names[2] != "d/sub/g" {
		t.Fatalf("listed %v, want d/f d/sub d/sub/g", names)
	}
	if resp, body := list("directory=d/sub", "l"); resp.StatusCode != http.StatusOK {
		t.Fatalf("listing a directory under it: %d %s", resp.StatusCode, body)
	}

	for _, c := range []struct {
		query, perms, code string
		status             int
	}{
		{"directory=other", "l", "AuthenticationFailed", http.StatusForbidden},
		{"", "l", "AuthenticationFailed", http.StatusForbidden},
		{"directory=d", "r", "AuthorizationPermissionMismatch", http.StatusForbidden},
	} {
		resp, body := list(c.query, c.perms)
		if resp.StatusCode != c.status || resp.Header.Get("x-ms-error-code") != c.code {
			t.Errorf("%q with %q: %d %s %s, want %d %s", c.query, c.perms, resp.StatusCode,
				resp.Header.Get("x-ms-error-code"), body, c.status, c.code)
		}
	}
	// List Blobs has no directory parameter: the same SAS with one added
	// does not list the container.
	sas := serviceSAS("d", "d").sign(e, "lake", "", "l")
	resp, body = e.send(http.MethodGet, "lake?restype=container&comp=list&directory=d&"+sas, nil, nil, nil)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("List Blobs with a directory SAS and ?directory=: %d %.200s", resp.StatusCode, body)
	}
}
