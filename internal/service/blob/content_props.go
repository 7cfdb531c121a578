package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// The content properties and metadata of the requests that write them:
// Put Blob of every blob type, Put Block List, Put Blob From URL and Set
// Blob Properties.

// parseContentProps reads a blob's content properties. Put Blob takes the
// standard headers (Content-Type, ...) with x-ms-blob-* overriding them;
// Put Block List and Set Blob Properties take only x-ms-blob-*. Properties
// not given are cleared, as the service does.
func parseContentProps(h http.Header, standard bool) (contentprops.Props, error) {
	get := func(std, blob string) string {
		if v := h.Get(blob); v != "" || !standard {
			return v
		}
		return h.Get(std)
	}
	p := contentprops.Props{
		Type:         get("Content-Type", "x-ms-blob-content-type"),
		Encoding:     get("Content-Encoding", "x-ms-blob-content-encoding"),
		Language:     get("Content-Language", "x-ms-blob-content-language"),
		Disposition:  h.Get("X-Ms-Blob-Content-Disposition"),
		CacheControl: get("Cache-Control", "x-ms-blob-cache-control"),
	}
	var err error
	p.MD5, err = contentprops.ParseMD5Property(h, "x-ms-blob-content-md5")
	return p, err
}

// parseNewBlobHeaders reads the content properties and metadata of a
// request that creates a blob's content (Put Blob, Put Block List): a blob
// stored without a type is application/octet-stream.
func parseNewBlobHeaders(h http.Header, standard bool) (contentprops.Props, metadata.Set, error) {
	p, err := parseContentProps(h, standard)
	if err != nil {
		return p, nil, err
	}
	if p.Type == "" {
		p.Type = contentprops.DefaultType
	}
	m, err := metadata.Parse(h)
	return p, m, err
}
