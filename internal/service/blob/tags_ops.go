package blob

import (
	"crypto/md5"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/crc64"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// getBlobTags is Get Blob Tags, of the base blob, a snapshot or a version.
func (s *Service) getBlobTags(w http.ResponseWriter, r *http.Request) error {
	conds, sel, err := parseTagsRequest(r)
	if err != nil {
		return err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	var tags blobdata.TagSet
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		b, err := s.tagTarget(tx, r, account, t, sel, conds)
		if b != nil {
			tags = b.Tags
		}
		return err
	})
	if err != nil {
		return err
	}
	x := newXMLWriter()
	writeTagSet(x, tags, nil)
	return x.Send(w, http.StatusOK)
}

// tagTarget loads and checks the blob state a tags request addresses.
func (s *Service) tagTarget(tx store.Tx, r *http.Request, account string, t target, sel blobdata.Selector, conds tagsConditions) (*blobdata.Blob, error) {
	_, found, err := blobdata.LoadContainer(tx, account, t.Container)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, containerNotFound()
	}
	b, err := blobdata.LoadState(tx, account, t.Container, t.Blob, sel, s.now())
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, blobNotFound()
	}
	if err := conds.tags.tagsHold(b); err != nil {
		return nil, err
	}
	if err := checkWriteConditions(conds.blob, b); err != nil {
		return nil, err
	}
	return b, b.Lease.CheckRead(leaseID(r), s.now(), lease.Blob)
}

// tagsConditions are a tags request's x-ms-if-tags and its x-ms-blob-if-*
// conditions on the blob's ETag and Last-Modified.
type tagsConditions struct {
	tags, blob conditions
}

// parseTagsRequest reads the conditions and the snapshot or version of Get
// or Set Blob Tags.
func parseTagsRequest(r *http.Request) (tagsConditions, blobdata.Selector, error) {
	var c tagsConditions
	var err error
	var sel blobdata.Selector
	if c.tags, sel, err = parseSelectedRequest(r, cond.IfTags); err != nil {
		return c, sel, err
	}
	c.blob.Conditions, err = cond.ParseBlob(r.Header)
	return c, sel, err
}

// setBlobTags is Set Blob Tags: it replaces the tags of the base blob or
// of a version, leaving the ETag and Last-Modified as they were, and moves
// the base blob's tag index entries in the same Update. Unlike Get Blob
// Tags, it needs the lease ID of a leased blob (412 LeaseIdMissing), as
// azblob's live test TestSetBlobTagsWithLeaseId requires.
func (s *Service) setBlobTags(w http.ResponseWriter, r *http.Request) error {
	conds, sel, err := parseTagsRequest(r)
	if err != nil {
		return err
	}
	if sel.Snapshot != "" {
		return azerr.InvalidQuery("snapshot", r.URL.Query().Get("snapshot"), "Tags cannot be set on a snapshot.")
	}
	tags, err := readTagsBody(r)
	if err != nil {
		return err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		b, err := s.tagTarget(tx, r, account, t, sel, conds)
		if err != nil {
			return err
		}
		if err := b.Lease.CheckWrite(leaseID(r), s.now(), lease.Blob); err != nil {
			return err
		}
		// The record the state was loaded from: the base blob for the
		// current version, else the previous version's own record.
		elem := b.LoadedFrom
		old := *b
		b.Tags = tags
		if err := reindexAfterSetTags(tx, account, t, elem, &old, b); err != nil {
			return err
		}
		return tx.Put(blobdata.RecordKey(account, t.Container, t.Blob, elem), b.Encode())
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// reindexAfterSetTags moves the index entries of the state under elem
// from its old tags to its new ones: the base blob's through blobdata.ReindexTags,
// a previous version's in the version index.
func reindexAfterSetTags(tx store.Tx, account string, t target, elem string, old, b *blobdata.Blob) error {
	if elem == blobdata.ElemBase {
		return blobdata.ReindexTags(tx, account, t.Container, t.Blob, old, b)
	}
	if err := blobdata.DropVersionTags(tx, account, t.Container, t.Blob, old); err != nil {
		return err
	}
	return blobdata.PutVersionTags(tx, account, t.Container, t.Blob, b)
}

// readTagsBody reads and checks a Set Blob Tags body against its declared
// Content-MD5 or CRC-64.
func readTagsBody(r *http.Request) (blobdata.TagSet, error) {
	sums, err := parseChecksums(r.Header)
	if err != nil {
		return nil, err
	}
	body, err := request.ReadBody(r, maxTagsBody)
	if err != nil {
		return nil, err
	}
	var crc []byte
	if sums.crc64 != nil {
		crc = crc64.Bytes(body)
	}
	if err := sums.verify(md5.Sum(body), crc); err != nil {
		return nil, err
	}
	return parseTagsBody(body)
}
