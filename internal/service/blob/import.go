package blob

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// This file is the Blob service's side of importing another emulator's
// data (internal/tool/azurite): the records a container, a blob state and
// an uncommitted block would have had had they been written here. Their
// encodings are package blobdata's; the importer only fills these plain
// types, inside its own store transaction.

// ImportedContainer is a container to import.
type ImportedContainer struct {
	Account, Name string
	// LastModified is kept as is: here it is the container's tick.
	Created, LastModified time.Time
	// ETag is the ETag the container had (quotes optional), answered
	// until its next change moves the tick; "" for the tick's.
	ETag string
	// Public is "", "blob" or "container" (x-ms-blob-public-access).
	Public   string
	Metadata metadata.Set
	ACL      []accesspolicy.Identifier
	Lease    lease.Lease
}

// ImportedBlob is one state of a blob to import: the base blob, or a
// snapshot when Snapshot is set.
type ImportedBlob struct {
	Account, Container, Name string
	// Snapshot is the snapshot time (any RFC 3339 form), "" for the base.
	Snapshot string
	// Type is "BlockBlob", "PageBlob" or "AppendBlob".
	Type string
	// Committed is false for a block blob that only has uncommitted
	// blocks (ImportBlock adds them).
	Committed             bool
	Created, LastModified time.Time
	Props                 contentprops.Props
	Metadata              metadata.Set
	Tags                  map[string]string
	// Tier is "" for the inferred tier; TierChanged is when it was set.
	Tier        string
	TierChanged time.Time
	// SequenceNumber is a page blob's, Sealed an append blob's.
	SequenceNumber int64
	Sealed         bool
	Lease          lease.Lease
	// ETag is as ImportedContainer's, for this state.
	ETag string
	// Copy is the copy that wrote the blob (x-ms-copy-*), nil if none.
	Copy *blobdata.CopyState
	// Content is the committed content in order; a page blob's holes are
	// pieces without an extent.
	Content []ImportedPiece
}

// ImportedPiece is a range of committed content: Length bytes of an
// extent already written to the store's extent engine, from Offset.
// BlockID is the decoded ID of the committed block it is ("" if none).
type ImportedPiece struct {
	Extent         string
	Offset, Length int64
	BlockID        string
}

// ImportedBlock is an uncommitted block: a whole extent.
type ImportedBlock struct {
	Account, Container, Blob string
	// ID is the decoded block ID.
	ID     string
	Extent string
	Size   int64
	Staged time.Time
}

// ImportContainer writes a container record.
func ImportContainer(tx store.Tx, c ImportedContainer) error {
	public, ok := map[string]byte{"": blobdata.AccessPrivate, "blob": blobdata.AccessBlob,
		"container": blobdata.AccessContainer}[c.Public]
	if !ok {
		return fmt.Errorf("container %s: unknown public access %q", c.Name, c.Public)
	}
	tick := etag.FromTime(c.LastModified)
	carried, err := etag.Carry(c.ETag, tick)
	if err != nil {
		return fmt.Errorf("container %s: %w", c.Name, err)
	}
	rec := &blobdata.Container{ETag: tick, CarriedETag: carried, Created: c.Created, Public: public,
		Metadata: c.Metadata, Lease: c.Lease, ACL: c.ACL}
	return blobdata.SaveContainer(tx, c.Account, c.Name, rec)
}

// ImportBlob writes one state of a blob, taking a reference on every
// extent its content names and indexing a base blob's tags.
func ImportBlob(tx store.Tx, b ImportedBlob) error {
	kind, ok := map[string]blobdata.BlobType{"BlockBlob": blobdata.BlockBlob, "PageBlob": blobdata.PageBlob,
		"AppendBlob": blobdata.AppendBlob}[b.Type]
	if !ok {
		return fmt.Errorf("blob %s/%s: unknown blob type %q", b.Container, b.Name, b.Type)
	}
	tick := etag.FromTime(b.LastModified)
	carried, err := etag.Carry(b.ETag, tick)
	if err != nil {
		return fmt.Errorf("blob %s/%s: %w", b.Container, b.Name, err)
	}
	rec := &blobdata.Blob{Type: kind, Committed: b.Committed, ETag: tick, CarriedETag: carried, Created: b.Created,
		Props: b.Props, Metadata: b.Metadata, Lease: b.Lease, Tier: b.Tier,
		SequenceNumber: b.SequenceNumber, Sealed: b.Sealed, Tags: importedTags(b.Tags)}
	rec.TierChanged = b.TierChanged // a field of the embedded identity state
	rec.Copy = b.Copy
	segs := make([]blobdata.Segment, 0, len(b.Content))
	for _, p := range b.Content {
		segs = append(segs, blobdata.Segment(p))
	}
	rec.SetSegments(segs)
	elem := blobdata.ElemBase
	if b.Snapshot != "" {
		id, ok := blobdata.ParseStamp(b.Snapshot)
		if !ok {
			return fmt.Errorf("blob %s/%s: snapshot time %q is not a timestamp", b.Container, b.Name, b.Snapshot)
		}
		elem, rec = blobdata.SnapshotPrefix+id, blobdata.Frozen(rec)
	}
	refs := blobdata.RefDelta{}
	if err := blobdata.PutState(tx, blobdata.RecordKey(b.Account, b.Container, b.Name, elem), rec, refs); err != nil {
		return err
	}
	if elem == blobdata.ElemBase {
		if err := blobdata.ReindexTags(tx, b.Account, b.Container, b.Name, nil, rec); err != nil {
			return err
		}
	}
	return refs.Apply(tx, time.Time{})
}

// ImportBlock writes an uncommitted block of a blob ImportBlob wrote
// (a placeholder one if it has no committed content) and takes a
// reference on its extent.
func ImportBlock(tx store.Tx, u ImportedBlock) error {
	b, found, err := blobdata.LoadBlob(tx, u.Account, u.Container, u.Blob)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("uncommitted block of %s/%s: the blob was not imported first", u.Container, u.Blob)
	}
	if b.HasUncommitted && b.BlockIDLen != len(u.ID) {
		return errors.New("uncommitted blocks of " + u.Container + "/" + u.Blob + " have IDs of different lengths")
	}
	b.HasUncommitted, b.BlockIDLen = true, len(u.ID)
	if err := blobdata.SaveBlob(tx, u.Account, u.Container, u.Blob, b); err != nil {
		return err
	}
	blk := blobdata.Block{Extent: u.Extent, Size: u.Size, Staged: u.Staged.UnixNano()}
	if err := tx.Put(blobdata.BlockKey(u.Account, u.Container, u.Blob, u.ID), blk.Encode()); err != nil {
		return err
	}
	refs := blobdata.RefDelta{}
	refs.Add(u.Extent)
	return refs.Apply(tx, time.Time{})
}

// importedTags is a tag set in the stored form, sorted by key.
func importedTags(m map[string]string) blobdata.TagSet {
	var set blobdata.TagSet
	for k, v := range m {
		set = append(set, blobdata.Tag{Key: k, Value: v})
	}
	slices.SortFunc(set, func(a, b blobdata.Tag) int { return strings.Compare(a.Key, b.Key) })
	return set
}
