package dfs

import (
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// setPathProperties is Path - Update action=setProperties: x-ms-properties
// replaces the path's properties, the blob's metadata ("If the file or
// directory exists, any properties not included in the list will be
// removed. All properties are removed if the header is omitted", Path -
// Update, x-ms-properties), and the x-ms-content-* headers set the content
// properties they name. A directory stays one: its hdi_isfolder marker is
// kept. Under the lease and the conditional headers; a new ETag.
func (s *Service) setPathProperties(w http.ResponseWriter, r *http.Request) error {
	if err := propertiesToMeta(r.Header); err != nil {
		return err
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	content, err := parseContentHeaders(r.Header)
	if err != nil {
		return err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	b, err := s.updatePath(r, func(tx store.Tx, b *blobdata.Blob, now time.Time) error {
		if err := b.Lease.CheckWrite(leaseID(r), now, lease.Blob); err != nil {
			return err
		}
		history, err := blobdata.BeginHistory(tx, account, t.Filesystem, t.Path, b, blobdata.WriteMetadata, now, s.versioningDefault)
		if err != nil {
			return err
		}
		if b.IsDirectory() {
			meta = withDirectoryMarker(meta)
		}
		b.Metadata = meta
		content.apply(&b.Props)
		b.Lease = b.Lease.AfterWrite(now)
		touch(b, now)
		refs := blobdata.RefDelta{}
		if err := history.Finish(tx, b, refs); err != nil {
			return err
		}
		return refs.Apply(tx, now)
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Length", "0")
	return answerChange(w, b, http.StatusOK)
}

// withDirectoryMarker is m with hdi_isfolder=true, in name order.
func withDirectoryMarker(m metadata.Set) metadata.Set {
	out := metadata.Set{{Name: blobdata.DirectoryFlag, Value: "true"}}
	for _, p := range m {
		if !strings.EqualFold(p.Name, blobdata.DirectoryFlag) {
			out = append(out, p)
		}
	}
	out.Sort()
	return out
}
