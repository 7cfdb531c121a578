package blob

import (
	"bytes"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/etag"
	"github.com/lazuli-storage/lazuli/internal/lease"
	"github.com/lazuli-storage/lazuli/internal/store"
)

// blobType is a blob's kind; stored, so never renumber.
type blobType byte

const (
	blockBlob  blobType = 1
	pageBlob   blobType = 2
	appendBlob blobType = 3
)

func (t blobType) String() string {
	switch t {
	case pageBlob:
		return "PageBlob"
	case appendBlob:
		return "AppendBlob"
	default:
		return "BlockBlob"
	}
}

// Blob record fields (tags). Later formats add tags (tags index, sequence
// number, page ranges, copy state, snapshot and version data) that this
// code skips when reading.
const (
	btagCore     = 1 // type, flags, etag, created, size, block id length
	btagProps    = 2 // content properties
	btagMetadata = 3
	btagLease    = 4
	btagSegments = 5 // committed content: extent segments
	btagTier     = 6
	// Tags 7-15 are kept for snapshot, version, copy, soft-delete and
	// tier-change data; 16-23 for the blob kinds and index tags below.
	btagVersion  = 7  // version id (records_identity.go)
	btagDeleted  = 8  // soft-delete instants
	btagCopy     = 9  // copy state
	btagTierInfo = 10 // tier change time and pending rehydration
	btagSequence = 16 // page blob sequence number
	btagSealed   = 17 // append blob sealed flag
	btagTags     = 18 // blob index tags
)

// Core flags.
const (
	flagCommitted      = 1 << 0 // has committed content (else a placeholder for uncommitted blocks)
	flagHasUncommitted = 1 << 1 // uncommitted block records exist
)

// blobRecord is the stored state of one blob.
type blobRecord struct {
	Type           blobType
	Committed      bool
	HasUncommitted bool
	// BlockIDLen is the decoded length of the blob's uncommitted block
	// IDs, all of which must agree; 0 when there are none.
	BlockIDLen int
	ETag       etag.Tick
	Created    time.Time
	Size       int64
	Props      contentProps
	Metadata   metadata
	Lease      lease.Lease
	Tier       string // "" while the tier is inferred (Hot)

	// SequenceNumber is a page blob's sequence number; Sealed marks an
	// append blob that takes no more blocks; Tags are the blob index tags
	// (sorted by key), mirrored in the tag index (tags_index.go).
	SequenceNumber int64
	Sealed         bool
	Tags           tagSet

	// identityState is the version, soft-delete, copy and tier state
	// (records_identity.go).
	identityState

	// segments is the encoded segment list, decoded on demand so that
	// listings never pay for it.
	segments []byte
}

// contentProps are the standard HTTP properties stored with a blob.
type contentProps struct {
	Type, Encoding, Language, Disposition, CacheControl string
	MD5                                                 []byte
}

// segment is one piece of committed content: Length bytes of an extent
// from Offset. BlockID is the committed block it came from ("" for a blob
// written by Put Blob).
type segment struct {
	Extent         string
	Offset, Length int64
	BlockID        string
}

// LastModified is the instant of the blob's current ETag.
func (b *blobRecord) LastModified() time.Time { return b.ETag.Time() }

func blobKey(account, container, name string) []byte {
	return store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(name).Str("")
}

// blobPrefix is the key prefix of every blob of a container.
func blobPrefix(account, container string) []byte {
	return store.NewKey(store.SpaceBlob).Str(account).Str(container)
}

// namePrefixKey is the key prefix of the blobs whose names start with
// prefix: the string element without its terminator.
func namePrefixKey(account, container, prefix string) []byte {
	k := store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(prefix)
	return k[:len(k)-2]
}

// blobNameFromKey returns the name and version elements of a blob key.
func blobNameFromKey(key []byte) (name, version string, err error) {
	r := store.ReadKey(key, store.SpaceBlob)
	r.Str()
	r.Str()
	name = r.Str()
	version = r.Str()
	return name, version, r.Err()
}

func (b *blobRecord) encode() []byte {
	e := encoder{b: make([]byte, 0, 128+len(b.segments))}
	e.byte(recordFormat)
	e.field(btagCore, func(e *encoder) {
		e.byte(byte(b.Type))
		var flags uint64
		if b.Committed {
			flags |= flagCommitted
		}
		if b.HasUncommitted {
			flags |= flagHasUncommitted
		}
		e.uvarint(flags)
		e.fixed64(uint64(b.ETag))
		e.time(b.Created)
		e.varint(b.Size)
		e.uvarint(uint64(b.BlockIDLen))
	})
	if !b.Props.empty() {
		e.field(btagProps, func(e *encoder) {
			p := &b.Props
			e.str(p.Type)
			e.str(p.Encoding)
			e.str(p.Language)
			e.str(p.Disposition)
			e.str(p.CacheControl)
			e.bytes(p.MD5)
		})
	}
	if len(b.Metadata) > 0 {
		e.field(btagMetadata, b.Metadata.encode)
	}
	if b.Lease.ID != "" {
		e.field(btagLease, func(e *encoder) { encodeLease(e, b.Lease) })
	}
	if len(b.segments) > 0 {
		e.byte(btagSegments)
		e.bytes(b.segments)
	}
	if b.Tier != "" {
		e.field(btagTier, func(e *encoder) { e.str(b.Tier) })
	}
	if b.SequenceNumber != 0 {
		e.field(btagSequence, func(e *encoder) { e.varint(b.SequenceNumber) })
	}
	if b.Sealed {
		e.field(btagSealed, func(e *encoder) { e.bool(true) })
	}
	if len(b.Tags) > 0 {
		e.field(btagTags, b.Tags.encode)
	}
	b.identityState.encode(&e)
	return e.b
}

// empty reports whether no content property is set.
func (p *contentProps) empty() bool {
	return p.Type == "" && p.Encoding == "" && p.Language == "" && p.Disposition == "" &&
		p.CacheControl == "" && len(p.MD5) == 0
}

// decodeBlob decodes a stored blob record. The record's bytes belong to the
// store; decodeBlob copies what it keeps.
func decodeBlob(v []byte) (*blobRecord, error) { return decodeBlobRecord(v, true) }

// decodeBlobProperties decodes all but the committed content, for listings.
func decodeBlobProperties(v []byte) (*blobRecord, error) { return decodeBlobRecord(v, false) }

func decodeBlobRecord(v []byte, withSegments bool) (*blobRecord, error) {
	if len(v) == 0 || v[0] != recordFormat {
		return nil, errBadRecord
	}
	b := &blobRecord{}
	d := decoder{b: v[1:]}
	d.fields(func(tag byte, p *decoder) {
		switch tag {
		case btagCore:
			b.Type = blobType(p.byte())
			flags := p.uvarint()
			b.Committed = flags&flagCommitted != 0
			b.HasUncommitted = flags&flagHasUncommitted != 0
			b.ETag = etag.Tick(p.fixed64())
			b.Created = p.time()
			b.Size = p.varint()
			b.BlockIDLen = int(p.uvarint())
		case btagProps:
			b.Props = contentProps{Type: p.str(), Encoding: p.str(), Language: p.str(),
				Disposition: p.str(), CacheControl: p.str()}
			if md5 := p.raw(); len(md5) > 0 {
				b.Props.MD5 = bytes.Clone(md5)
			}
		case btagMetadata:
			b.Metadata = decodeMetadata(p)
		case btagLease:
			b.Lease = decodeLease(p)
		case btagSegments:
			if withSegments {
				b.segments = bytes.Clone(p.b)
			}
		case btagTier:
			b.Tier = p.str()
		case btagSequence:
			b.SequenceNumber = p.varint()
		case btagSealed:
			b.Sealed = p.bool()
		case btagTags:
			b.Tags = decodeTagSet(p)
		case btagVersion, btagDeleted, btagCopy, btagTierInfo:
			b.identityState.decodeField(tag, p)
		}
	})
	return b, d.err
}

// Segments decodes the committed content.
func (b *blobRecord) Segments() ([]segment, error) {
	d := decoder{b: b.segments}
	if len(d.b) == 0 {
		return nil, nil
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errBadRecord
	}
	segs := make([]segment, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		segs = append(segs, segment{Extent: d.str(), Offset: int64(d.uvarint()),
			Length: int64(d.uvarint()), BlockID: d.str()})
	}
	return segs, d.err
}

// SetSegments replaces the committed content and the size.
func (b *blobRecord) SetSegments(segs []segment) {
	var size int64
	e := encoder{b: make([]byte, 0, 8+len(segs)*48)}
	e.uvarint(uint64(len(segs)))
	for _, s := range segs {
		e.str(s.Extent)
		e.uvarint(uint64(s.Offset))
		e.uvarint(uint64(s.Length))
		e.str(s.BlockID)
		size += s.Length
	}
	if len(segs) == 0 {
		e.b = nil
	}
	b.segments = e.b
	b.Size = size
}

// loadBlob reads a blob's base record; found is false when there is none.
func loadBlob(tx store.Tx, account, container, name string) (*blobRecord, bool, error) {
	v, err := tx.Get(blobKey(account, container, name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	b, err := decodeBlob(v)
	return b, err == nil, err
}

func saveBlob(tx store.Tx, account, container, name string, b *blobRecord) error {
	return tx.Put(blobKey(account, container, name), b.encode())
}
