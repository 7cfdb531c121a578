package blobdata

import (
	"bytes"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/leaserecord"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// BlobType is a blob's kind; stored, so never renumber.
type BlobType byte

const (
	BlockBlob  BlobType = 1
	PageBlob   BlobType = 2
	AppendBlob BlobType = 3
)

func (t BlobType) String() string {
	switch t {
	case PageBlob:
		return "PageBlob"
	case AppendBlob:
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

// Blob is the stored state of one blob.
type Blob struct {
	Type           BlobType
	Committed      bool
	HasUncommitted bool
	// BlockIDLen is the decoded length of the blob's uncommitted block
	// IDs, all of which must agree; 0 when there are none.
	BlockIDLen int
	ETag       etag.Tick
	Created    time.Time
	Size       int64
	Props      contentprops.Props
	Metadata   metadata.Set
	Lease      lease.Lease
	Tier       string // "" while the tier is inferred (Hot)

	// CarriedETag is the ETag an import kept for the state while ETag is
	// the tick it came with (records_carried.go); ETagString answers it.
	CarriedETag etag.Carried

	// SequenceNumber is a page blob's sequence number; Sealed marks an
	// append blob that takes no more blocks; Tags are the blob index tags
	// (sorted by key), mirrored in the tag index (tags_index.go).
	SequenceNumber int64
	Sealed         bool
	Tags           TagSet

	// IdentityState is the version, soft-delete, copy and tier state
	// (records_identity.go).
	IdentityState
	// RetentionState is the expiry, immutability policy and legal hold
	// (records_retention.go).
	RetentionState

	// Encryption is the customer-provided key and scope the content was
	// written with (records_encryption.go).
	Encryption EncryptionState
	// PremiumPage marks a page blob of a premium account, whose tier
	// without a set one is inferred from its size (premium_tier.go).
	PremiumPage bool
	// Posix is a Data Lake path's owners and ACL (records_posix.go).
	Posix PosixState
	// EncryptionContext is the Data Lake path's x-ms-encryption-context,
	// kept as given (records_context.go).
	EncryptionContext string

	// segments is the encoded segment list, decoded on demand so that
	// listings never pay for it.
	segments []byte
}

// Segment is one piece of committed content: Length bytes of an extent
// from Offset. BlockID is the committed block it came from ("" for a blob
// written by Put Blob).
type Segment struct {
	Extent         string
	Offset, Length int64
	BlockID        string
}

// LastModified is the instant of the blob's current tick.
func (b *Blob) LastModified() time.Time { return b.ETag.Time() }

func blobKey(account, container, name string) []byte {
	return store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(name).Str("")
}

// BlobPrefix is the key prefix of every blob of a container.
func BlobPrefix(account, container string) []byte {
	return store.NewKey(store.SpaceBlob).Str(account).Str(container)
}

// NamePrefixKey is the key prefix of the blobs whose names start with
// prefix: the string element without its terminator.
func NamePrefixKey(account, container, prefix string) []byte {
	k := store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(prefix)
	return k[:len(k)-2]
}

// BlobNameFromKey returns the name and version elements of a blob key.
func BlobNameFromKey(key []byte) (name, version string, err error) {
	r := store.ReadKey(key, store.SpaceBlob)
	r.Str()
	r.Str()
	name = r.Str()
	version = r.Str()
	return name, version, r.Err()
}

func (b *Blob) Encode() []byte {
	e := record.NewEncoder(128 + len(b.segments))
	e.Byte(recordFormat)
	e.Field(btagCore, func(e *record.Encoder) {
		e.Byte(byte(b.Type))
		var flags uint64
		if b.Committed {
			flags |= flagCommitted
		}
		if b.HasUncommitted {
			flags |= flagHasUncommitted
		}
		e.Uvarint(flags)
		e.Fixed64(uint64(b.ETag))
		e.Time(b.Created)
		e.Varint(b.Size)
		e.Uvarint(uint64(b.BlockIDLen))
	})
	if !b.Props.Empty() {
		e.Field(btagProps, b.Props.Encode)
	}
	if len(b.Metadata) > 0 {
		e.Field(btagMetadata, b.Metadata.Encode)
	}
	if b.Lease.ID != "" {
		e.Field(btagLease, func(e *record.Encoder) { leaserecord.Encode(e, b.Lease) })
	}
	if len(b.segments) > 0 {
		e.Byte(btagSegments)
		e.Raw(b.segments)
	}
	if b.Tier != "" {
		e.Field(btagTier, func(e *record.Encoder) { e.Str(b.Tier) })
	}
	if b.SequenceNumber != 0 {
		e.Field(btagSequence, func(e *record.Encoder) { e.Varint(b.SequenceNumber) })
	}
	if b.Sealed {
		e.Field(btagSealed, func(e *record.Encoder) { e.Bool(true) })
	}
	if len(b.Tags) > 0 {
		e.Field(btagTags, b.Tags.Encode)
	}
	b.IdentityState.encode(&e)
	b.RetentionState.encode(&e)
	b.Encryption.encode(&e)
	encodePremium(&e, b.PremiumPage)
	b.Posix.encode(&e)
	encodeEncryptionContext(&e, b.EncryptionContext)
	encodeCarried(&e, btagCarriedETag, b.ETag, b.CarriedETag)
	return e.Bytes()
}

// DecodeBlob decodes a stored blob record. The record's bytes belong to the
// store; DecodeBlob copies what it keeps.
func DecodeBlob(v []byte) (*Blob, error) { return decodeBlobRecord(v, true) }

// DecodeBlobProperties decodes all but the committed content, for listings.
func DecodeBlobProperties(v []byte) (*Blob, error) { return decodeBlobRecord(v, false) }

func decodeBlobRecord(v []byte, withSegments bool) (*Blob, error) {
	if len(v) == 0 || v[0] != recordFormat {
		return nil, record.ErrMalformed
	}
	b := &Blob{}
	d := record.NewDecoder(v[1:])
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case btagCore:
			b.Type = BlobType(p.Byte())
			flags := p.Uvarint()
			b.Committed = flags&flagCommitted != 0
			b.HasUncommitted = flags&flagHasUncommitted != 0
			b.ETag = etag.Tick(p.Fixed64())
			b.Created = p.Time()
			b.Size = p.Varint()
			b.BlockIDLen = int(p.Uvarint())
		case btagProps:
			b.Props = contentprops.Decode(p)
		case btagMetadata:
			b.Metadata = metadata.Decode(p)
		case btagLease:
			b.Lease = leaserecord.Decode(p)
		case btagSegments:
			if withSegments {
				b.segments = bytes.Clone(p.Rest())
			}
		case btagTier:
			b.Tier = p.Str()
		case btagSequence:
			b.SequenceNumber = p.Varint()
		case btagSealed:
			b.Sealed = p.Bool()
		case btagTags:
			b.Tags = DecodeTagSet(p)
		case btagVersion, btagDeleted, btagCopy, btagTierInfo:
			b.IdentityState.decodeField(tag, p)
		case btagExpiry, btagImmutability, btagLegalHold:
			b.RetentionState.decodeField(tag, p)
		case btagEncryption:
			b.Encryption = decodeEncryption(p)
		case btagPremium:
			b.PremiumPage = p.Bool()
		case btagPosix:
			b.Posix = decodePosix(p)
		case btagEncryptionContext:
			b.EncryptionContext = p.Str()
		case btagCarriedETag:
			b.CarriedETag = decodeCarried(p)
		}
	})
	return b, d.Err()
}

// Segments decodes the committed content.
func (b *Blob) Segments() ([]Segment, error) {
	d := record.NewDecoder(b.segments)
	if d.Len() == 0 {
		return nil, nil
	}
	n := d.Count()
	if d.Err() != nil {
		return nil, d.Err()
	}
	segs := make([]Segment, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		segs = append(segs, Segment{Extent: d.Str(), Offset: int64(d.Uvarint()),
			Length: int64(d.Uvarint()), BlockID: d.Str()})
	}
	return segs, d.Err()
}

// ShareSegments gives b the committed content of src, whose extent
// references the caller adds.
func (b *Blob) ShareSegments(src *Blob) { b.segments = src.segments }

// SetSegments replaces the committed content and the size.
func (b *Blob) SetSegments(segs []Segment) {
	if len(segs) == 0 {
		b.segments, b.Size = nil, 0
		return
	}
	var size int64
	e := record.NewEncoder(8 + len(segs)*48)
	e.Uvarint(uint64(len(segs)))
	for _, s := range segs {
		e.Str(s.Extent)
		e.Uvarint(uint64(s.Offset))
		e.Uvarint(uint64(s.Length))
		e.Str(s.BlockID)
		size += s.Length
	}
	b.segments = e.Bytes()
	b.Size = size
}

// LoadBlob reads a blob's base record; found is false when there is none.
func LoadBlob(tx store.Tx, account, container, name string) (*Blob, bool, error) {
	v, err := tx.Get(blobKey(account, container, name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	b, err := DecodeBlob(v)
	return b, err == nil, err
}

func SaveBlob(tx store.Tx, account, container, name string, b *Blob) error {
	return tx.Put(blobKey(account, container, name), b.Encode())
}

// LoadLiveBlob reads a blob's base record as requests see it: nil when
// there is none or it has expired. A placeholder for uncommitted blocks is
// returned as it is.
func LoadLiveBlob(tx store.Tx, account, container, name string, now time.Time) (*Blob, error) {
	b, _, err := LoadBlob(tx, account, container, name)
	if err != nil || b == nil || b.ExpiredAt(now) {
		return nil, err
	}
	return b, nil
}

// CommittedBlocks is an append blob's block count: one segment per block,
// read from the count that leads the encoded segment list.
func (b *Blob) CommittedBlocks() int64 {
	d := record.NewDecoder(b.segments)
	if d.Len() == 0 {
		return 0
	}
	return int64(d.Uvarint())
}
