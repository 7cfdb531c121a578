package blob

import (
	"errors"
	"net/http"
	"sort"

	"github.com/lazuli-storage/lazuli/internal/rule/structured"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blob/blocklist"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// putBlockArgs is a parsed Put Block request.
type putBlockArgs struct {
	id     string // decoded
	sums   checksums
	length int64
}

func parsePutBlock(r *http.Request) (putBlockArgs, error) {
	var a putBlockArgs
	if err := validContainerName(targetOf(r).Container); err != nil {
		return a, err
	}
	raw, ok := r.URL.Query()["blockid"]
	if !ok {
		return a, azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "blockid")
	}
	var err error
	if a.id, err = blocklist.DecodeID(raw[0]); err != nil {
		return a, azerr.New(azerr.InvalidBlockId).With("QueryParameterName", "blockid").With("QueryParameterValue", raw[0])
	}
	if _, err := blobConditions(r, 0); err != nil {
		return a, err
	}
	if _, err := structured.AcceptUpload(r); err != nil {
		return a, err
	}
	if a.sums, err = parseChecksums(r.Header); err != nil {
		return a, err
	}
	a.length, err = contentLength(r, versionLimit(r, largeLimitsVersion, maxPutBlockBytes, legacyPutBlockBytes))
	return a, err
}

// putBlock is Put Block: the body streams into an extent that an
// uncommitted-block record references. A blob that does not exist yet gets
// a placeholder record, so listings with include=uncommittedblobs show it;
// a committed blob's ETag does not move.
func (s *Service) putBlock(w http.ResponseWriter, r *http.Request) error {
	a, err := parsePutBlock(r)
	if err != nil {
		return err
	}
	d := a.sums.digests(request.Of(r).Version, false)
	info, crc, err := s.receive(r, a.length, a.sums, d)
	if err != nil {
		return err
	}
	return s.commitBlock(w, r, a.id, info, crc, d)
}

// commitBlock stages the received extent info as uncommitted block id of
// the target blob in one Update, and answers Put Block or Put Block From
// URL.
func (s *Service) commitBlock(w http.ResponseWriter, r *http.Request, id string, info extent.Info, crc []byte, d digests) error {
	t := targetOf(r)
	account := request.Of(r).Account
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		c, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		if err := keyOf(r).resolve(c); err != nil {
			return err
		}
		b, err := blobdata.LoadBlobForWrite(tx, account, t.Container, t.Blob, s.now())
		if err != nil {
			return err
		}
		if b != nil && b.Committed {
			// Staging a block for a blob that exists prepares its
			// overwrite: a create-only SAS may not (the SDK's
			// TestStageBlockWithUDSCreatePermissionOverwriteFails).
			if err := authorizeOverwrite(r, containerTarget(t, c)); err != nil {
				return err
			}
		}
		return s.stageBlock(tx, r, b, id, blobdata.Block{ID: id, Extent: info.ID, Size: info.Size, KeySHA256: keyOf(r).SHA256})
	})
	if err != nil {
		return err
	}
	d.setHeaders(w.Header(), info.MD5, crc)
	structured.EchoUpload(w.Header(), r.Header)
	setRequestEncrypted(w.Header(), r)
	return write(w, http.StatusCreated)
}

// stageBlock records an uncommitted block of blob b (nil when the blob
// does not exist), replacing a staged block of the same ID.
func (s *Service) stageBlock(tx store.Tx, r *http.Request, b *blobdata.Blob, id string, blk blobdata.Block) error {
	t := targetOf(r)
	account := request.Of(r).Account
	now := s.now()
	var current lease.Lease
	if b != nil && b.Committed {
		current = b.Lease
	}
	if err := current.CheckWrite(leaseID(r), now, lease.Blob); err != nil {
		return err
	}
	switch {
	case b == nil:
		b = &blobdata.Blob{Type: blobdata.BlockBlob, ETag: etag.Next(now, 0), Created: now}
	case b.Type != blobdata.BlockBlob:
		return azerr.New(azerr.InvalidBlobType)
	case b.HasUncommitted && b.BlockIDLen != len(id):
		return azerr.Newf(azerr.InvalidBlobOrBlock, "The specified blob or block content is invalid: all block IDs of a blob must have the same length.")
	}
	refs := blobdata.RefDelta{}
	if !b.HasUncommitted {
		b.HasUncommitted, b.BlockIDLen = true, len(id)
		if err := blobdata.SaveBlob(tx, account, t.Container, t.Blob, b); err != nil {
			return err
		}
	} else if err := dropStaged(tx, blobdata.BlockKey(account, t.Container, t.Blob, id), refs); err != nil {
		return err
	}
	blk.Staged = now.UnixNano()
	refs.Add(blk.Extent)
	if err := tx.Put(blobdata.BlockKey(account, t.Container, t.Blob, id), blk.Encode()); err != nil {
		return err
	}
	return refs.Apply(tx, now)
}

// dropStaged releases the reference of a staged block that a new upload
// of the same ID replaces, if there is one.
func dropStaged(tx store.Tx, key []byte, refs blobdata.RefDelta) error {
	v, err := tx.Get(key)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	old, err := blobdata.DecodeBlock(key, v)
	if err != nil {
		return err
	}
	refs.Drop(old.Extent)
	return nil
}

// getBlockList is Get Block List.
func (s *Service) getBlockList(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	conds, sel, err := parseSelectedRequest(r, cond.IfTags)
	if err != nil {
		return err
	}
	var withCommitted, withUncommitted bool
	switch lt := r.URL.Query().Get("blocklisttype"); lt {
	case "", "committed":
		withCommitted = true
	case "uncommitted":
		withUncommitted = true
	case "all":
		withCommitted, withUncommitted = true, true
	default:
		return azerr.InvalidQuery("blocklisttype", lt, "")
	}
	account := request.Of(r).Account
	var b *blobdata.Blob
	var committed, uncommitted []blocklist.Block
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		_, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		if !found {
			return containerNotFound()
		}
		if sel.Base() {
			b, err = blobdata.LoadLiveBlob(tx, account, t.Container, t.Blob, s.now())
		} else {
			// A snapshot or version has committed blocks only.
			b, err = blobdata.LoadState(tx, account, t.Container, t.Blob, sel, s.now())
		}
		if err != nil || b == nil {
			return firstErr(err, blobNotFound())
		}
		if b.Type != blobdata.BlockBlob {
			return azerr.New(azerr.InvalidBlobType)
		}
		if err := conds.tagsHold(b); err != nil {
			return err
		}
		if b.Committed {
			if err := b.Lease.CheckRead(leaseID(r), s.now(), lease.Blob); err != nil {
				return err
			}
		}
		committed, uncommitted, err = blockLists(tx, account, t, b, withCommitted, withUncommitted)
		return err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	if b.Committed {
		setBlobETag(h, b)
	}
	h.Set("X-Ms-Blob-Content-Length", itoa(b.Size))
	return blocklist.Write(committed, uncommitted, withCommitted, withUncommitted).Send(w, http.StatusOK)
}

// blockLists reads a blob's committed blocks (from its segments; a blob
// written by Put Blob has none) and its uncommitted blocks in upload order.
func blockLists(tx store.Tx, account string, t target, b *blobdata.Blob, withCommitted, withUncommitted bool) (committed, uncommitted []blocklist.Block, err error) {
	if withCommitted {
		segs, err := b.Segments()
		if err != nil {
			return nil, nil, err
		}
		for _, s := range segs {
			if s.BlockID != "" {
				committed = append(committed, blocklist.Block{ID: s.BlockID, Size: s.Length})
			}
		}
	}
	if withUncommitted && b.HasUncommitted {
		blocks, err := blobdata.LoadBlocks(tx, account, t.Container, t.Blob)
		if err != nil {
			return nil, nil, err
		}
		sort.SliceStable(blocks, func(i, j int) bool { return blocks[i].Staged < blocks[j].Staged })
		for _, u := range blocks {
			uncommitted = append(uncommitted, blocklist.Block{ID: u.ID, Size: u.Size})
		}
	}
	return committed, uncommitted, nil
}
