package dfs

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// withResourceType is w for a Blob request that reads a path (Get Blob
// or Get Blob Properties, no comp) on an account with a hierarchical
// namespace: its answer also says x-ms-resource-type, directory or file,
// as the service's Path - Read and Path - Get Properties do and as the
// DataLake SDKs read it from their Blob calls (azdatalake's GetProperties
// takes its ResourceType from it). The directory flag is in the answer's
// metadata already. Other requests get w as it is.
func (e *Endpoint) withResourceType(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	if (r.Method != http.MethodHead && r.Method != http.MethodGet) || r.URL.Query().Has("comp") || !e.DFS.hnsAccount(r) {
		return w
	}
	if _, level := parsePath(request.Of(r).Path); level != route.Object {
		return w
	}
	return &answerHeaders{ResponseWriter: w, fix: func(h http.Header) {
		kind := "file"
		for k, vs := range h {
			// Metadata headers keep the stored name's case.
			if strings.EqualFold(k, metaPrefix+blobdata.DirectoryFlag) && len(vs) > 0 && strings.EqualFold(vs[0], "true") {
				kind = "directory"
			}
		}
		h.Set(resourceTypeHeader, kind)
	}}
}
