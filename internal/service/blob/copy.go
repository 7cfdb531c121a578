package blob

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/abortcopy"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Copy sizes: Copy Blob From URL copies at most 256 MiB; Copy Blob has
// no limit of its own beyond the largest block blob (50,000 blocks of
// 4000 MiB).
const (
	maxSyncCopyBytes = 256 << 20
	maxCopyBlobBytes = 50000 * (4000 << 20)
)

// copyArgs is a parsed Copy Blob or Copy Blob From URL request.
type copyArgs struct {
	conds    conditions
	source   sourceArgs
	src      copySource
	metadata metadata.Set // nil: the source's metadata
	tier     string
	priority string
	tags     blobdata.TagSet
	// copyTags is x-ms-copy-source-tag-option: COPY (the source's tags
	// instead of x-ms-tags).
	copyTags bool
	// seal is x-ms-seal-blob, nil when absent (the source's sealed state).
	seal *bool
	// sourceMD5 is x-ms-source-content-md5 (Copy Blob From URL).
	sourceMD5 []byte
}

func (s *Service) parseCopy(r *http.Request, sync bool) (copyArgs, error) {
	var a copyArgs
	var err error
	if a.conds, err = parseBaseRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	if a.source, err = parseSourceArgs(r, cond.AllConditions); err != nil {
		return a, err
	}
	if a.metadata, err = metadata.Parse(r.Header); err != nil {
		return a, err
	}
	if a.tier, err = parseTier(r.Header); err != nil {
		return a, err
	}
	if a.priority, err = parseRehydratePriority(r.Header); err != nil {
		return a, err
	}
	if a.tags, err = parseTagsHeader(r.Header.Get("X-Ms-Tags")); err != nil {
		return a, err
	}
	if sync {
		if a.sourceMD5, err = parseMD5(r.Header, "x-ms-source-content-md5"); err != nil {
			return a, err
		}
		if a.copyTags, err = parseTagOption(r.Header, a.tags); err != nil {
			return a, err
		}
	}
	if raw := r.Header.Get("X-Ms-Seal-Blob"); raw != "" {
		seal, err := strconv.ParseBool(raw)
		if err != nil {
			return a, azerr.InvalidHeader("x-ms-seal-blob", raw)
		}
		a.seal = &seal
	}
	if a.src, err = s.parseCopySource(r); err != nil {
		return a, err
	}
	return a, nil
}

// parseTagOption reads x-ms-copy-source-tag-option: REPLACE (the default:
// the request's x-ms-tags) or COPY (the source's tags, with no x-ms-tags).
func parseTagOption(h http.Header, tags blobdata.TagSet) (copyTags bool, err error) {
	switch v := h.Get("X-Ms-Copy-Source-Tag-Option"); {
	case v == "" || strings.EqualFold(v, "REPLACE"):
		return false, nil
	case strings.EqualFold(v, "COPY") && tags == nil:
		return true, nil
	default:
		return false, azerr.InvalidHeader("x-ms-copy-source-tag-option", v)
	}
}

// putBlobFromURLRow is Put Blob From URL: a copy source and a blob type,
// which must be BlockBlob.
func (s *Service) putBlobFromURLRow(w http.ResponseWriter, r *http.Request) error {
	if kind := r.Header.Get("X-Ms-Blob-Type"); !strings.EqualFold(kind, "BlockBlob") {
		return azerr.InvalidHeader("x-ms-blob-type", kind)
	}
	return s.putBlobFromURL(w, r)
}

// copyBlobRow is a copy source without a blob type: Copy Blob, unless
// x-ms-requires-sync is true in a spelling the route table does not match
// ("1", "t"), which is Copy Blob From URL as its row is.
func (s *Service) copyBlobRow(w http.ResponseWriter, r *http.Request) error {
	if raw := r.Header.Get("X-Ms-Requires-Sync"); raw != "" {
		sync, err := strconv.ParseBool(raw)
		if err != nil {
			return azerr.InvalidHeader("x-ms-requires-sync", raw)
		}
		if sync {
			return s.copyFromURL(w, r)
		}
	}
	return s.copyBlob(w, r)
}

// copyResult is what a copy answers.
type copyResult struct {
	rec    *blobdata.Blob
	copyID string
	status string
}

// send answers a copy; md5, when not nil, is answered as Content-MD5.
func (c copyResult) send(w http.ResponseWriter, md5 []byte) error {
	h := w.Header()
	setWriteResult(h, c.rec)
	h.Set("X-Ms-Copy-Id", c.copyID)
	h.Set("X-Ms-Copy-Status", c.status)
	setIf(h, "Content-MD5", md5Base64(md5))
	return write(w, http.StatusAccepted)
}

// copyBlob is Copy Blob. A local source is copied in the transaction that
// writes the destination, by sharing its extents, so the copy finishes at
// once (x-ms-copy-status: success); only a copy out of the archive tier
// stays pending, until the source's rehydration delay has passed, and can
// be aborted meanwhile. Other sources are fetched before the transaction.
// Either way the asynchronous protocol holds: x-ms-copy-id and the copy
// properties on the destination, which pollers read.
func (s *Service) copyBlob(w http.ResponseWriter, r *http.Request) error {
	a, err := s.parseCopy(r, false)
	if err != nil {
		return err
	}
	res, err := s.runCopy(r, a, false)
	if err != nil {
		return err
	}
	return res.send(w, nil)
}

// copyFromURL is Copy Blob From URL: the same copy, synchronous, of a
// committed block blob of at most 256 MiB that is not archived.
func (s *Service) copyFromURL(w http.ResponseWriter, r *http.Request) error {
	a, err := s.parseCopy(r, true)
	if err != nil {
		return err
	}
	res, err := s.runCopy(r, a, true)
	if err != nil {
		return err
	}
	// Content-MD5 is the verified x-ms-source-content-md5 and nothing
	// else: azure-sdk-for-js's recorded "sync copy with cold tier"
	// (recordings/node/blobclient/recording_sync_copy_with_cold_tier.js)
	// answers a copy sent without one with no Content-MD5, though the
	// copied blob has one.
	md5 := a.sourceMD5
	// It answers the scope it wrote under, as the other writes of data
	// do (the SDK's TestCopyBlockBlobFromURLWithEncryptionScope).
	setIf(w.Header(), "X-Ms-Encryption-Scope", keyOf(r).Scope)
	return res.send(w, md5)
}

// runCopy writes the destination of Copy Blob or Copy Blob From URL.
func (s *Service) runCopy(r *http.Request, a copyArgs, sync bool) (copyResult, error) {
	limit := int64(maxCopyBlobBytes)
	if sync {
		limit = maxSyncCopyBytes
	}
	var remote *fetched
	if !a.src.local {
		var err error
		// The tags first: a source that refuses them costs no content.
		var tags blobdata.TagSet
		if a.copyTags {
			if tags, err = s.fetchSourceTags(r, a.src); err != nil {
				return copyResult{}, err
			}
		}
		if remote, err = s.fetchSource(r, a.src, nil, limit, checksums{}); err != nil {
			return copyResult{}, err
		}
		remote.tags = tags
	}
	res := copyResult{copyID: guid.New(), status: blobdata.CopySuccess}
	rec, err := s.writeBlobAs(r, a.conds, blobdata.WriteReplace, func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		now := s.now()
		if err := copyLeaseRule(old, now); err != nil {
			return nil, err
		}
		src, err := s.copyContent(tx, r, a, remote, sync, limit)
		if err != nil {
			return nil, err
		}
		if old != nil && old.Committed && old.Type != src.Type {
			return nil, azerr.New(azerr.InvalidBlobType)
		}
		rec, err := s.replaced(tx, r, old, refs)
		if err != nil {
			return nil, err
		}
		if err := copyInto(rec, src, a); err != nil {
			return nil, err
		}
		rec.Copy = &blobdata.CopyState{ID: res.copyID, Source: a.src.display(), Total: rec.Size, Started: now, Ends: now}
		if !sync {
			rec.Copy.Ends = now.Add(s.crossAccountCopyTime(r, a.src, rec.Size))
		}
		if src.ArchivedAt(now) && !sync {
			rehydrateCopy(rec, a, now)
		}
		exts, err := rec.Extents()
		for _, id := range exts {
			refs.Add(id)
		}
		return rec, err
	})
	if err != nil {
		return copyResult{}, err
	}
	res.rec = rec
	res.status, _ = rec.Copy.Status(s.now())
	return res, nil
}

// copyLeaseRule is Copy Blob's destination lease rule on top of the usual
// one (an active lease needs its ID): the lease must be infinite.
func copyLeaseRule(old *blobdata.Blob, now time.Time) error {
	if old == nil || !old.Committed {
		return nil
	}
	if st := old.Lease.State(now); (st == lease.Leased || st == lease.Breaking) && old.Lease.Duration != lease.Infinite {
		return azerr.New(azerr.InfiniteLeaseDurationRequired)
	}
	return nil
}

// copyContent returns the source state a copy writes: a local blob read in
// the copy's transaction, or the fetched content as a block blob.
func (s *Service) copyContent(tx store.Tx, r *http.Request, a copyArgs, remote *fetched, sync bool, limit int64) (*blobdata.Blob, error) {
	now := s.now()
	if remote != nil {
		src := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true, Props: remote.props, Metadata: remote.meta, Tags: remote.tags}
		if src.Props.Type == "" {
			src.Props.Type = contentprops.DefaultType // a new blob has a type
		}
		src.SetSegments(remote.segments())
		return src, checkSourceMD5(a.sourceMD5, remote.md5[:])
	}
	src, err := s.loadSource(tx, r, a.src, a.source, now)
	if err != nil {
		return nil, err
	}
	switch {
	case src.Size > limit:
		return nil, sourceTooLarge(limit)
	case sync && src.Type != blobdata.BlockBlob:
		return nil, azerr.New(azerr.InvalidSourceBlobType)
	case src.ArchivedAt(now) && (sync || a.tier == ""):
		// An archived source is copied only by the asynchronous copy,
		// into the tier the request names.
		return nil, azerr.New(azerr.BlobArchived)
	}
	return src, checkSourceMD5(a.sourceMD5, src.Props.MD5)
}

// checkSourceMD5 compares x-ms-source-content-md5 with the source's MD5.
func checkSourceMD5(want, got []byte) error {
	if want == nil || string(want) == string(got) {
		return nil
	}
	return azerr.New(azerr.Md5Mismatch).
		With("UserSpecifiedMd5", md5Base64(want)).With("ServerCalculatedMd5", md5Base64(got))
}

// copyInto gives a destination record the source's kind, content,
// properties, metadata (the request's when it sent any) and sealed state
// (x-ms-seal-blob overrides it), the requested tier and tags. The content
// is shared: the caller takes the extent references.
func copyInto(rec, src *blobdata.Blob, a copyArgs) error {
	rec.Type = src.Type
	rec.ShareSegments(src)
	rec.Size = src.Size
	rec.Props = src.Props
	rec.Metadata = src.Metadata
	if a.metadata != nil {
		rec.Metadata = a.metadata
	}
	rec.SequenceNumber = src.SequenceNumber
	rec.Tier = a.tier
	rec.Tags = a.tags
	if a.copyTags {
		rec.Tags = src.Tags
	}
	rec.Sealed = src.Sealed
	if a.seal != nil {
		if *a.seal && src.Type != blobdata.AppendBlob {
			return azerr.Newf(azerr.InvalidHeaderValue, "Only an append blob can be sealed.").
				With("HeaderName", "x-ms-seal-blob").With("HeaderValue", "true")
		}
		rec.Sealed = *a.seal
	}
	return nil
}

// rehydrateCopy makes a copy of an archived source pending: the
// destination stays archived until the rehydration delay has passed, then
// has the requested tier and the copy succeeds. A copy to the archive tier
// needs no rehydration.
func rehydrateCopy(rec *blobdata.Blob, a copyArgs, now time.Time) {
	target := a.tier
	if target == "Archive" {
		return
	}
	ends := now.Add(rehydrateDelay(a.priority))
	rec.Tier = "Archive"
	rec.Rehydrate = &blobdata.Rehydration{Target: target, Priority: a.priority, Ends: ends}
	rec.Copy.Ends = ends
}

// abortCopy is Abort Copy Blob: a pending copy stops, leaving the
// destination with its metadata and no content. The copy ID must match
// (409 CopyIdMismatch); a copy that already ended cannot be aborted (409
// NoPendingCopyOperation). An active lease on the destination needs its ID.
func (s *Service) abortCopy(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if _, err := parseBaseRequest(r, 0); err != nil {
		return err
	}
	copyID, err := abortcopy.Parse(r)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if _, found, err := blobdata.LoadContainer(tx, account, t.Container); err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		now := s.now()
		b, err := blobdata.LoadLiveBlob(tx, account, t.Container, t.Blob, now)
		if err != nil || b == nil || !b.Committed {
			return firstErr(err, blobNotFound())
		}
		if err := b.Lease.CheckWrite(leaseID(r), now, lease.Blob); err != nil {
			return err
		}
		switch {
		case !b.CopyPendingAt(now):
			return azerr.New(azerr.NoPendingCopyOperation)
		case b.Copy.ID != copyID:
			return azerr.New(azerr.CopyIdMismatch)
		}
		refs := blobdata.RefDelta{}
		exts, err := b.Extents()
		if err != nil {
			return err
		}
		for _, id := range exts {
			refs.Drop(id)
		}
		b.SetSegments(nil)
		b.Props.MD5 = nil
		b.Tier, b.Rehydrate = "", nil
		b.Copy.Aborted = now
		s.touch(b)
		if err := refs.Apply(tx, now); err != nil {
			return err
		}
		return blobdata.SaveBlob(tx, account, t.Container, t.Blob, b)
	})
	if err != nil {
		return err
	}
	return write(w, http.StatusNoContent)
}
