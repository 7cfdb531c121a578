package dfs

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// pathChange changes the record of the path a Path - Update or Path -
// Lease request addresses, inside the request's store transaction.
type pathChange func(tx store.Tx, b *blobdata.Blob, now time.Time) error

// updatePath runs change on the path r addresses in one store Update and
// saves the record: the filesystem and the path must exist (404
// FilesystemNotFound, PathNotFound; a blob that has only uncommitted
// blocks is not a path yet), and r's conditional headers must hold for
// the path as it was (412 ConditionNotMet). It returns the saved record.
func (s *Service) updatePath(r *http.Request, change pathChange) (*blobdata.Blob, error) {
	conds, err := cond.Parse(r.Header)
	if err != nil {
		return nil, err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	var saved *blobdata.Blob
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		now := s.now()
		b, err := loadPath(tx, account, t, now)
		if err != nil {
			return err
		}
		if err := conds.CheckWrite(resourceOf(b)); err != nil {
			return err
		}
		if err := change(tx, b, now); err != nil {
			return err
		}
		saved = b
		return blobdata.SaveBlob(tx, account, t.Filesystem, t.Path, b)
	})
	return saved, err
}

// viewPath reads the path r addresses, which must exist as updatePath
// says; an expired one is not there (a read leaves its removal to the
// next write).
func (s *Service) viewPath(r *http.Request) (*blobdata.Blob, error) {
	t := targetOf(r)
	account := request.Of(r).Account
	var b *blobdata.Blob
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		if err := existingFilesystem(tx, account, t.Filesystem); err != nil {
			return err
		}
		var err error
		if b, err = blobdata.LoadLiveBlob(tx, account, t.Filesystem, t.Path, s.now()); err == nil && (b == nil || !b.Committed) {
			err = azerr.New(azerr.PathNotFound)
		}
		return err
	})
	return b, err
}

// loadPath reads a path's record in tx as a write sees it: 404
// FilesystemNotFound or PathNotFound when it does not exist.
func loadPath(tx store.Tx, account string, t target, now time.Time) (*blobdata.Blob, error) {
	if err := existingFilesystem(tx, account, t.Filesystem); err != nil {
		return nil, err
	}
	b, err := pathForWrite(tx, account, t.Filesystem, t.Path, now)
	if err == nil && b == nil {
		err = azerr.New(azerr.PathNotFound)
	}
	return b, err
}

// touch gives a changed record its new ETag and Last-Modified.
func touch(b *blobdata.Blob, now time.Time) { b.ETag = etag.Next(now, b.ETag) }

// notOnDirectory is the answer to a file operation on a directory.
func notOnDirectory() error {
	return azerr.Newf(azerr.InvalidInput, "The requested operation is not supported on a directory.")
}

// position reads the ?position= of append and flush, a byte offset the
// operation requires: absent is 400 MissingRequiredQueryParameter, not a
// non-negative integer 400 InvalidQueryParameterValue.
func position(r *http.Request) (int64, error) {
	q := r.URL.Query()
	if !q.Has("position") {
		return 0, azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "position")
	}
	raw := q.Get("position")
	p, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || p < 0 {
		return 0, azerr.InvalidQuery("position", raw, "")
	}
	return p, nil
}

// queryBool reads an optional true/false query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return false, nil
	}
	v, err := strconv.ParseBool(raw)
	if err != nil {
		return false, azerr.InvalidQuery(name, raw, "")
	}
	return v, nil
}

// contentHeaders are the request headers of flush and setProperties that
// set a file's content properties ("Optional and only valid for flush and
// set properties operations", Path - Update, x-ms-cache-control and its
// siblings).
var contentHeaders = []struct {
	name string
	set  func(p *contentprops.Props, v string)
}{
	{"x-ms-content-type", func(p *contentprops.Props, v string) { p.Type = v }},
	{"x-ms-content-encoding", func(p *contentprops.Props, v string) { p.Encoding = v }},
	{"x-ms-content-language", func(p *contentprops.Props, v string) { p.Language = v }},
	{"x-ms-content-disposition", func(p *contentprops.Props, v string) { p.Disposition = v }},
	{"x-ms-cache-control", func(p *contentprops.Props, v string) { p.CacheControl = v }},
}

// contentChange is what a request's content headers do to a path's
// properties: each header sent sets its property, the others stay.
type contentChange struct {
	values map[string]string
	md5    []byte
}

// parseContentHeaders reads the content headers of h; a malformed
// x-ms-content-md5 is 400 InvalidMd5.
func parseContentHeaders(h http.Header) (contentChange, error) {
	c := contentChange{values: map[string]string{}}
	for _, ch := range contentHeaders {
		if v := h.Get(ch.name); v != "" {
			c.values[ch.name] = v
		}
	}
	var err error
	c.md5, err = contentprops.ParseMD5Property(h, "x-ms-content-md5")
	return c, err
}

// apply sets the properties the request sent on p.
func (c contentChange) apply(p *contentprops.Props) {
	for _, ch := range contentHeaders {
		if v, sent := c.values[ch.name]; sent {
			ch.set(p, v)
		}
	}
	if c.md5 != nil {
		p.MD5 = c.md5
	}
}

// answerChange writes the ETag and Last-Modified of a changed path and
// the status.
func answerChange(w http.ResponseWriter, b *blobdata.Blob, status int) error {
	h := w.Header()
	h.Set("ETag", b.ETagString())
	h.Set("Last-Modified", httpTime(b.LastModified()))
	w.WriteHeader(status)
	return nil
}
