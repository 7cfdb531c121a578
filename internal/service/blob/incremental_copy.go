package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// incrementalCopy is Incremental Copy Blob: a snapshot of a page blob is
// copied into a destination page blob, which then gets a snapshot of its
// own (x-ms-copy-destination-snapshot). The destination is an incremental
// copy blob: only further incremental copies of the same source, each of a
// later snapshot, write it. The service transfers only the pages changed
// since the last copied snapshot; Lazuli shares the source's extents, so
// every copy costs records, not bytes, and finishes at once.
func (s *Service) incrementalCopy(w http.ResponseWriter, r *http.Request) error {
	conds, err := parseBaseRequest(r, cond.AllConditions)
	if err != nil {
		return err
	}
	if r.Header.Get("X-Ms-Copy-Source") == "" {
		return azerr.MissingHeader("x-ms-copy-source")
	}
	src, err := s.parseCopySource(r)
	if err != nil {
		return err
	}
	if !src.local {
		return s.remoteIncrementalCopy(w, r, conds, src)
	}
	if src.sel.Snapshot == "" {
		return azerr.New(azerr.IncrementalCopySourceMustBeSnapshot)
	}
	copyID := guid.New()
	rec, err := s.writeBlobAs(r, conds, blobdata.WriteIncremental, func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		return s.copyIncrement(tx, r, src, copyID, old, refs)
	})
	if err != nil {
		return err
	}
	return copyResult{rec: rec, copyID: copyID, status: incrementalCopyAnswer}.send(w, nil)
}

// incrementalCopyAnswer is the x-ms-copy-status Incremental Copy Blob
// answers: pending, as the service always answers it (the SDK's live
// TestIncrementalCopy requires it, then polls Get Blob Properties). Lazuli
// has finished the copy by then, so the destination already reads success.
const incrementalCopyAnswer = blobdata.CopyPending

// copyIncrement writes the destination of one incremental copy and its
// snapshot.
func (s *Service) copyIncrement(tx store.Tx, r *http.Request, src copySource, copyID string, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
	source, err := s.loadSource(tx, r, src, sourceArgs{}, s.now())
	if err != nil {
		return nil, err
	}
	if source.Type != blobdata.PageBlob {
		return nil, azerr.New(azerr.InvalidSourceBlobType)
	}
	from := increment{blob: src.account + "/" + src.t.Container + "/" + src.t.Blob, snapshot: src.sel.Snapshot, display: src.display()}
	return s.writeIncrement(tx, r, source, from, copyID, old, refs)
}

// increment names the source snapshot of one incremental copy: its blob
// (what later copies must name again), its snapshot time, and the URL the
// destination's x-ms-copy-source shows.
type increment struct {
	blob, snapshot, display string
}

// writeIncrement makes the destination the content of source, a snapshot
// of a page blob, checking it continues the destination's copies, and
// takes the destination's own snapshot.
func (s *Service) writeIncrement(tx store.Tx, r *http.Request, source *blobdata.Blob, from increment, copyID string, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
	now := s.now()
	if old != nil && old.Committed {
		switch {
		case !old.IncrementalCopy() || old.Copy.SourceBlob != from.blob:
			return nil, azerr.New(azerr.IncrementalCopyBlobMismatch)
		case from.snapshot <= old.Copy.SourceSnapshot:
			return nil, azerr.New(azerr.IncrementalCopyOfEarlierSnapshotNotAllowed)
		}
	}
	rec, err := s.replaced(tx, r, old, refs)
	if err != nil {
		return nil, err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	if err := copyInto(rec, source, copyArgs{}); err != nil {
		return nil, err
	}
	snapID, err := blobdata.FreeStamp(tx, account, t.Container, t.Blob, blobdata.SnapshotPrefix, now)
	if err != nil {
		return nil, err
	}
	rec.Copy = &blobdata.CopyState{ID: copyID, Source: from.display, Total: rec.Size, Started: now, Ends: now,
		Incremental: true, SourceBlob: from.blob, SourceSnapshot: from.snapshot, DestSnapshot: snapID}
	exts, err := rec.Extents()
	if err != nil {
		return nil, err
	}
	for _, id := range exts {
		refs.Add(id)
	}
	snap := blobdata.Frozen(rec)
	snap.VersionID = ""
	return rec, blobdata.PutState(tx, blobdata.RecordKey(account, t.Container, t.Blob, blobdata.SnapshotPrefix+snapID), snap, refs)
}
