package azurite

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
)

// This file is the only one that names package blob, so that a move of
// the Blob service's record types is adapted here alone.

// azContainer is a document of Azurite's $CONTAINERS_COLLECTION$.
type azContainer struct {
	Account    string            `json:"accountName"`
	Name       string            `json:"name"`
	Metadata   map[string]string `json:"metadata"`
	Properties struct {
		LastModified  time.Time `json:"lastModified"`
		ETag          string    `json:"etag"`
		PublicAccess  string    `json:"publicAccess"`
		LeaseState    string    `json:"leaseState"`
		LeaseDuration string    `json:"leaseDuration"`
	} `json:"properties"`
	azLease
	ACL  []azIdentifier `json:"containerAcl"`
	Meta lokiMeta       `json:"meta"`
}

// azBlob is a document of Azurite's $BLOBS_COLLECTION$: a base blob or a
// snapshot.
type azBlob struct {
	Account   string            `json:"accountName"`
	Container string            `json:"containerName"`
	Name      string            `json:"name"`
	Snapshot  string            `json:"snapshot"`
	Deleted   bool              `json:"deleted"`
	Committed bool              `json:"isCommitted"`
	Metadata  map[string]string `json:"metadata"`
	BlobTags  *struct {
		Set []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"blobTagSet"`
	} `json:"blobTags"`
	Properties struct {
		Created            time.Time       `json:"creationTime"`
		LastModified       time.Time       `json:"lastModified"`
		ETag               string          `json:"etag"`
		Length             int64           `json:"contentLength"`
		ContentType        string          `json:"contentType"`
		ContentEncoding    string          `json:"contentEncoding"`
		ContentLanguage    string          `json:"contentLanguage"`
		ContentDisposition string          `json:"contentDisposition"`
		CacheControl       string          `json:"cacheControl"`
		ContentMD5         json.RawMessage `json:"contentMD5"`
		BlobType           string          `json:"blobType"`
		AccessTier         string          `json:"accessTier"`
		AccessTierInferred bool            `json:"accessTierInferred"`
		AccessTierChanged  time.Time       `json:"accessTierChangeTime"`
		SequenceNumber     int64           `json:"blobSequenceNumber"`
		Sealed             bool            `json:"isSealed"`
		LeaseState         string          `json:"leaseState"`
		LeaseDuration      string          `json:"leaseDuration"`
		azCopy
	} `json:"properties"`
	azLease
	// Content: one chunk (Put Blob), committed blocks in order (block and
	// append blobs), or written page ranges (page blobs).
	Persistency *chunk        `json:"persistency"`
	Blocks      []azBlock     `json:"committedBlocksInOrder"`
	Pages       []azPageRange `json:"pageRangesInOrder"`
}

// azPageRange is a written range of a page blob.
type azPageRange struct {
	Start       int64 `json:"start"`
	End         int64 `json:"end"` // inclusive
	Persistency chunk `json:"persistency"`
}

// azBlock is a block: committed inside a blob document, or uncommitted in
// $BLOCKS_COLLECTION$.
type azBlock struct {
	Account     string   `json:"accountName"`
	Container   string   `json:"containerName"`
	Blob        string   `json:"blobName"`
	Name        string   `json:"name"` // base64 block ID
	Size        int64    `json:"size"`
	Persistency chunk    `json:"persistency"`
	Meta        lokiMeta `json:"meta"`
}

// readBlobs plans the Blob service's import: the accounts' service
// properties, containers, then blobs and snapshots, then uncommitted
// blocks, whose content it copies.
func readBlobs(dir string, c *copier, p *plan) error {
	db, found, err := readLoki(dir, blobDB)
	if err != nil || !found {
		return err
	}
	p.databases++
	folder, err := readExtentFolder(dir, blobExtentDB, blobFolder)
	if err != nil {
		return err
	}
	if err := planServiceProps(db, auth.Blob, p); err != nil {
		return err
	}
	if err := each(db, "$CONTAINERS_COLLECTION$", func(d *azContainer) error { return planContainer(d, p) }); err != nil {
		return err
	}
	if err := each(db, "$BLOBS_COLLECTION$", func(d *azBlob) error { return planBlob(d, folder, c, p) }); err != nil {
		return err
	}
	return each(db, "$BLOCKS_COLLECTION$", func(d *azBlock) error { return planBlock(d, folder, c, p) })
}

func planContainer(d *azContainer, p *plan) error {
	what := "container " + d.Name
	l, err := leaseOf(d.Properties.LeaseState, d.Properties.LeaseDuration, d.azLease)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	acl, err := policiesOf(d.ACL)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	rec := blob.ImportedContainer{Account: d.Account, Name: d.Name, Created: d.Meta.time(),
		LastModified: d.Properties.LastModified, ETag: d.Properties.ETag, Public: d.Properties.PublicAccess,
		Metadata: metadataOf(d.Metadata), ACL: acl, Lease: l}
	p.Containers++
	p.write(func(tx store.Tx) error { return blob.ImportContainer(tx, rec) })
	return nil
}

func planBlob(d *azBlob, folder *extentFolder, c *copier, p *plan) error {
	what := fmt.Sprintf("blob %s/%s", d.Container, d.Name)
	if d.Snapshot != "" {
		what += " (snapshot " + d.Snapshot + ")"
	}
	if d.Deleted {
		return fmt.Errorf("%s: marked deleted, a state this import does not carry", what)
	}
	rec, err := blobRecord(d, what)
	if err != nil {
		return err
	}
	if rec.Content, err = blobContent(d, folder, c, what); err != nil {
		return err
	}
	if d.Snapshot != "" {
		p.Snapshots++
	} else {
		p.Blobs++
	}
	p.write(func(tx store.Tx) error { return blob.ImportBlob(tx, rec) })
	return nil
}

// blobRecord is everything of a blob but its content.
func blobRecord(d *azBlob, what string) (blob.ImportedBlob, error) {
	props := d.Properties
	md5, err := bytesOf(props.ContentMD5)
	if err != nil {
		return blob.ImportedBlob{}, fmt.Errorf("%s: content MD5: %w", what, err)
	}
	l, err := leaseOf(props.LeaseState, props.LeaseDuration, d.azLease)
	if err != nil {
		return blob.ImportedBlob{}, fmt.Errorf("%s: %w", what, err)
	}
	rec := blob.ImportedBlob{Account: d.Account, Container: d.Container, Name: d.Name, Snapshot: d.Snapshot,
		Type: props.BlobType, Committed: d.Committed, Created: props.Created, LastModified: props.LastModified, ETag: props.ETag,
		Props: contentprops.Props{Type: props.ContentType, Encoding: props.ContentEncoding, Language: props.ContentLanguage,
			Disposition: props.ContentDisposition, CacheControl: props.CacheControl, MD5: md5},
		Metadata: metadataOf(d.Metadata), SequenceNumber: props.SequenceNumber, Sealed: props.Sealed, Lease: l}
	if rec.Copy, err = props.azCopy.state(); err != nil {
		return blob.ImportedBlob{}, fmt.Errorf("%s: %w", what, err)
	}
	if props.AccessTier != "" && !props.AccessTierInferred {
		rec.Tier, rec.TierChanged = props.AccessTier, props.AccessTierChanged
	}
	if d.BlobTags != nil && len(d.BlobTags.Set) > 0 {
		rec.Tags = map[string]string{}
		for _, t := range d.BlobTags.Set {
			rec.Tags[t.Key] = t.Value
		}
	}
	return rec, nil
}

// blobContent copies a blob's committed content and describes it in
// order; the pieces must add up to the blob's length.
func blobContent(d *azBlob, folder *extentFolder, c *copier, what string) ([]blob.ImportedPiece, error) {
	var pieces []blob.ImportedPiece
	var err error
	switch {
	case !d.Committed:
	case d.Properties.BlobType == "PageBlob":
		pieces, err = pageContent(d, folder, c, what)
	case len(d.Blocks) > 0:
		for _, b := range d.Blocks {
			id, decodeErr := base64.StdEncoding.DecodeString(b.Name)
			if decodeErr != nil {
				return nil, fmt.Errorf("%s: block ID %q is not base64", what, b.Name)
			}
			piece, copyErr := copyPiece(b.Persistency, folder, c, what)
			if copyErr != nil {
				return nil, copyErr
			}
			piece.BlockID = string(id)
			pieces = append(pieces, piece)
		}
	case d.Persistency != nil && d.Persistency.Count > 0:
		piece, copyErr := copyPiece(*d.Persistency, folder, c, what)
		pieces = append(pieces, piece)
		err = copyErr
	}
	if err != nil {
		return nil, err
	}
	var size int64
	for _, piece := range pieces {
		size += piece.Length
	}
	if d.Committed && size != d.Properties.Length {
		return nil, fmt.Errorf("%s: its content ranges hold %d bytes, its length is %d", what, size, d.Properties.Length)
	}
	return pieces, nil
}

// pageContent is a page blob's page map: the written ranges, in order,
// with holes of unwritten pages between them and up to the blob's size.
func pageContent(d *azBlob, folder *extentFolder, c *copier, what string) ([]blob.ImportedPiece, error) {
	ranges := slices.Clone(d.Pages)
	slices.SortFunc(ranges, func(a, b azPageRange) int { return cmp.Compare(a.Start, b.Start) })
	var pieces []blob.ImportedPiece
	var pos int64
	for _, r := range ranges {
		if r.Start < pos || r.End < r.Start || r.Persistency.Count != r.End-r.Start+1 {
			return nil, fmt.Errorf("%s: page range %d-%d overlaps another or does not match its content", what, r.Start, r.End)
		}
		if r.Start > pos {
			pieces = append(pieces, blob.ImportedPiece{Length: r.Start - pos})
		}
		piece, err := copyPiece(r.Persistency, folder, c, what)
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, piece)
		pos = r.End + 1
	}
	if size := d.Properties.Length; size > pos {
		pieces = append(pieces, blob.ImportedPiece{Length: size - pos})
	}
	return pieces, nil
}

func copyPiece(ch chunk, folder *extentFolder, c *copier, what string) (blob.ImportedPiece, error) {
	id, err := c.copy(folder, ch, what)
	return blob.ImportedPiece{Extent: id, Length: ch.Count}, err
}

func planBlock(d *azBlock, folder *extentFolder, c *copier, p *plan) error {
	what := fmt.Sprintf("uncommitted block %q of blob %s/%s", d.Name, d.Container, d.Blob)
	id, err := base64.StdEncoding.DecodeString(d.Name)
	if err != nil {
		return fmt.Errorf("%s: the block ID is not base64", what)
	}
	ext, err := c.copy(folder, d.Persistency, what)
	if err != nil {
		return err
	}
	blk := blob.ImportedBlock{Account: d.Account, Container: d.Container, Blob: d.Blob, ID: string(id),
		Extent: ext, Size: d.Persistency.Count, Staged: d.Meta.time()}
	p.Blocks++
	p.write(func(tx store.Tx) error { return blob.ImportBlock(tx, blk) })
	return nil
}
