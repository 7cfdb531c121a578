package dfs

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// resourceTypeHeader says whether a path is a file or a directory.
const resourceTypeHeader = "X-Ms-Resource-Type"

// resourceTypeOf is a path's x-ms-resource-type.
func resourceTypeOf(b *blobdata.Blob) string {
	if b.IsDirectory() {
		return "directory"
	}
	return "file"
}

// getPathStatus is Path - Get Properties with action=getStatus: only the
// system properties (ETag, Last-Modified, x-ms-resource-type, the length),
// no content headers or user properties. Conditions are a read's (304 or
// 412 ConditionNotMet).
func (s *Service) getPathStatus(w http.ResponseWriter, r *http.Request) error {
	conds, err := cond.Parse(r.Header)
	if err != nil {
		return err
	}
	t, info := targetOf(r), request.Of(r)
	var b *blobdata.Blob
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		if err := existingFilesystem(tx, info.Account, t.Filesystem); err != nil {
			return err
		}
		b, err = blobdata.LoadLiveBlob(tx, info.Account, t.Filesystem, t.Path, s.now())
		return err
	})
	if err != nil {
		return err
	}
	if b == nil || !b.Committed {
		return azerr.New(azerr.PathNotFound)
	}
	if err := conds.CheckRead(resourceOf(b), info.Version); err != nil {
		return err
	}
	h := w.Header()
	h.Set("ETag", b.ETagString())
	h.Set("Last-Modified", httpTime(b.LastModified()))
	h.Set(resourceTypeHeader, resourceTypeOf(b))
	h.Set("Content-Length", strconv.FormatInt(b.Size, 10))
	w.WriteHeader(http.StatusOK)
	return nil
}

// fileTime renders an instant as the listing's creationTime and
// expiryTime: a Windows file time, 100-nanosecond intervals since
// 1601-01-01 UTC, in decimal.
func fileTime(t time.Time) string {
	const unixEpochInFileTime = 116444736000000000
	return strconv.FormatInt(t.UnixNano()/100+unixEpochInFileTime, 10)
}
