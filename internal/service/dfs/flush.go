package dfs

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// flushArgs is what a flush is asked: the file's length after it, whether
// appends beyond it stay staged, the content properties it sets and what
// it does to the lease, and the customer-provided key and encryption
// scope it gives (cpk.go).
type flushArgs struct {
	position int64
	retain   bool
	content  contentChange
	lease    writeLease
	enc      encryption
}

// flushData is Path - Update action=flush: the data appended from the
// file's length up to ?position= becomes its content (400
// InvalidFlushPosition when it does not run end to end to there), the
// x-ms-content-* headers set its properties, and the conditional headers
// and the lease guard it; a file written with a customer-provided key or
// under an encryption scope needs them again (cpk.go). "There must not be a request entity body"
// (Path - Update, position). ?close= only tells the service's change
// events whether the stream ends, which Lazuli does not raise; it is read
// for its form.
func (s *Service) flushData(w http.ResponseWriter, r *http.Request) error {
	a, err := parseFlush(r)
	if err != nil {
		return err
	}
	if a.enc, err = s.parseEncryption(r); err != nil {
		return err
	}
	renewed := false
	b, err := s.updatePath(r, func(tx store.Tx, b *blobdata.Blob, now time.Time) error {
		if b.IsDirectory() {
			return notOnDirectory()
		}
		if err := a.enc.check(tx, request.Of(r).Account, targetOf(r), b); err != nil {
			return err
		}
		var err error
		if renewed, err = a.lease.before(b, now); err != nil {
			return err
		}
		return s.flushStaged(tx, r, b, a, now)
	})
	if err != nil {
		return err
	}
	h := w.Header()
	a.enc.answer(h)
	if renewed {
		h.Set("X-Ms-Lease-Renewed", "true")
	}
	h.Set("Content-Length", "0")
	return answerChange(w, b, http.StatusOK)
}

// parseFlush reads a flush request.
func parseFlush(r *http.Request) (flushArgs, error) {
	var a flushArgs
	var err error
	if a.position, err = position(r); err != nil {
		return a, err
	}
	if a.retain, err = queryBool(r, "retainUncommittedData"); err != nil {
		return a, err
	}
	if _, err = queryBool(r, "close"); err != nil {
		return a, err
	}
	if r.ContentLength > 0 {
		return a, azerr.InvalidHeader("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	if a.lease, err = parseWriteLease(r.Header, true); err != nil {
		return a, err
	}
	a.content, err = parseContentHeaders(r.Header)
	return a, err
}

// flushStaged commits file b's staged appends up to a.position in tx (the
// caller saves b), sets the properties a names, settles the lease and
// gives b a new ETag. A flush that adds content clears a Content-MD5 the
// request does not set, as it no longer describes the file.
func (s *Service) flushStaged(tx store.Tx, r *http.Request, b *blobdata.Blob, a flushArgs, now time.Time) error {
	t := targetOf(r)
	account := request.Of(r).Account
	history, err := blobdata.BeginHistory(tx, account, t.Filesystem, t.Path, b, blobdata.WritePlain, now, s.versioningDefault)
	if err != nil {
		return err
	}
	refs := blobdata.RefDelta{}
	before := b.Size
	if err := blobdata.FlushAppends(tx, account, t.Filesystem, t.Path, b, a.position, a.retain, a.enc.key, refs); err != nil {
		return err
	}
	if b.Size != before {
		b.Props.MD5 = nil
	}
	a.content.apply(&b.Props)
	a.lease.after(b, now)
	touch(b, now)
	if err := history.Finish(tx, b, refs); err != nil {
		return err
	}
	return refs.Apply(tx, now)
}
