package dfs

import (
	"net/http"
	"net/url"
	"strings"
)

// resources are the values of ?resource= that name a dfs operation:
// List Filesystems (account), the filesystem operations and List Paths
// (filesystem), and Path Create (file, directory).
var resources = map[string]bool{"account": true, "filesystem": true, "file": true, "directory": true}

// IsRequest reports whether r is a Data Lake (dfs) operation rather than a
// Blob one; the Blob endpoint answers both (Endpoint). The markers are the
// ones DataLakeStorage.json's operations carry and Blob's never do:
//   - ?resource=account|filesystem|file|directory (filesystem operations,
//     List Paths, Path Create);
//   - ?action= (Path Update, Get Properties' getStatus and
//     getAccessControl) and ?mode= (rename, recursive access control);
//   - a PUT or POST without ?comp= carrying x-ms-lease-action (Path Lease,
//     a POST in DataLakeStorage.json; Blob's lease operations say
//     comp=lease) or x-ms-rename-source (rename);
//   - a PUT carrying x-ms-undelete-source (Path - Undelete, comp=undelete
//     as Undelete Blob's, which names no source);
//   - a DELETE with ?recursive=, ?continuation= or ?paginated= (Path
//     Delete of a directory), or accepting JSON only (jsonDelete).
//
// Path Read (GET) and a plain HEAD (Get Properties) carry none of them and
// are the Blob service's Get Blob and Get Blob Properties.
func IsRequest(r *http.Request) bool {
	q := r.URL.Query()
	if resources[strings.ToLower(q.Get("resource"))] || q.Has("action") || q.Has("mode") {
		return true
	}
	switch r.Method {
	case http.MethodPut, http.MethodPost:
		if r.Method == http.MethodPut && r.Header.Get(undeleteSourceHeader) != "" {
			return true
		}
		return !q.Has("comp") && (r.Header.Get("x-ms-lease-action") != "" || r.Header.Get("x-ms-rename-source") != "")
	case http.MethodDelete:
		return q.Has("recursive") || q.Has("continuation") || q.Has("paginated") || jsonDelete(r, q)
	}
	return false
}

// jsonDelete reports whether a DELETE with no Blob query parameter asks
// for a JSON answer: the Python SDK's delete_file sends Path - Delete with
// no recursive= at all and Accept: application/json, as every generated
// dfs operation does, where every Blob SDK's Delete Blob accepts
// application/xml. Path - Delete answers 200, Delete Blob 202, and the
// SDK refuses the other.
func jsonDelete(r *http.Request, q url.Values) bool {
	for _, name := range []string{"comp", "restype", "snapshot", "versionid", "deletetype"} {
		if q.Has(name) {
			return false
		}
	}
	accept := strings.ToLower(r.Header.Get("Accept"))
	return strings.Contains(accept, "application/json") && !strings.Contains(accept, "xml")
}
