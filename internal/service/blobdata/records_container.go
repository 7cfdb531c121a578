package blobdata

import (
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/leaserecord"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// Records are encoded with the binary codec of package record: compact and
// reflection-free, because List Blobs and Get Blob decode a record per blob.

// recordFormat is the first byte of every container, blob and block record
// this package writes; a later format bumps it and keeps reading this one.
const recordFormat = 1

// Container record fields (tags of the tagged-field body).
const (
	ctagCore     = 1 // etag tick, creation time, public access, deleting flag
	ctagMetadata = 2
	ctagLease    = 3
	ctagACL      = 4 // the stored access policies as written before ctagPolicies; read only
	ctagPolicies = 7 // the stored access policies, in accesspolicy's stored form
	// ctagEncryption is the default encryption scope and whether writes
	// may name another (service/blob scope.go); tags 5-29 are left to other state.
	ctagEncryption = 30
	// ctagRootPosix is the root directory's owner, owning group, sticky
	// bit and ACL on a hierarchical namespace, as btagPosix a path's.
	ctagRootPosix = 8
)

// Public access levels (x-ms-blob-public-access).
const (
	AccessPrivate   byte = 0
	AccessBlob      byte = 1
	AccessContainer byte = 2
)

// Container is the stored state of one container.
type Container struct {
	ETag    etag.Tick
	Created time.Time
	Public  byte
	// Deleting is set while Delete Container removes the blobs in batches;
	// the container is then invisible and cannot be created again.
	Deleting bool
	Metadata metadata.Set
	Lease    lease.Lease
	ACL      []accesspolicy.Identifier
	// ContainerLife is the soft delete and move state
	// (records_container_life.go).
	ContainerLife
	// DefaultScope is the encryption scope of writes that name none (""
	// for the account's key); DenyScopeOverride forbids naming another.
	DefaultScope      string
	DenyScopeOverride bool
	// RootPosix is the root directory's access control once set
	// (RootAccess).
	RootPosix PosixState

	// CarriedETag is the ETag an import kept for the container while ETag
	// is the tick it came with (records_carried.go); ETagString answers it.
	CarriedETag etag.Carried
}

func ContainerKey(account, container string) []byte {
	return store.NewKey(store.SpaceContainer).Str(account).Str(container)
}

func (c *Container) encode() []byte {
	e := record.NewEncoder(64)
	e.Byte(recordFormat)
	e.Field(ctagCore, func(e *record.Encoder) {
		e.Fixed64(uint64(c.ETag))
		e.Time(c.Created)
		e.Byte(c.Public)
		e.Bool(c.Deleting)
	})
	if len(c.Metadata) > 0 {
		e.Field(ctagMetadata, c.Metadata.Encode)
	}
	if c.Lease.ID != "" {
		e.Field(ctagLease, func(e *record.Encoder) { leaserecord.Encode(e, c.Lease) })
	}
	if len(c.ACL) > 0 {
		e.Field(ctagPolicies, func(e *record.Encoder) { accesspolicy.EncodeRecord(e, c.ACL) })
	}
	c.ContainerLife.encode(&e)
	if c.DefaultScope != "" || c.DenyScopeOverride {
		e.Field(ctagEncryption, func(e *record.Encoder) {
			e.Str(c.DefaultScope)
			e.Bool(c.DenyScopeOverride)
		})
	}
	c.RootPosix.encodeField(&e, ctagRootPosix)
	encodeCarried(&e, ctagCarriedETag, c.ETag, c.CarriedETag)
	return e.Bytes()
}

func DecodeContainer(v []byte) (*Container, error) {
	if len(v) == 0 || v[0] != recordFormat {
		return nil, record.ErrMalformed
	}
	c := &Container{}
	d := record.NewDecoder(v[1:])
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case ctagCore:
			c.ETag = etag.Tick(p.Fixed64())
			c.Created = p.Time()
			c.Public = p.Byte()
			c.Deleting = p.Bool()
		case ctagMetadata:
			c.Metadata = metadata.Decode(p)
		case ctagLease:
			c.Lease = leaserecord.Decode(p)
		case ctagACL:
			c.ACL = decodeACLBefore7(p)
		case ctagPolicies:
			c.ACL = accesspolicy.DecodeRecord(p)
		case ctagDeleted, ctagMove:
			c.ContainerLife.decodeField(tag, p)
		case ctagEncryption:
			c.DefaultScope = p.Str()
			c.DenyScopeOverride = p.Bool()
		case ctagRootPosix:
			c.RootPosix = decodePosix(p)
		case ctagCarriedETag:
			c.CarriedETag = decodeCarried(p)
		}
	})
	return c, d.Err()
}

// LoadContainer reads a container; found is false when it does not exist
// or is hidden (being deleted, soft-deleted or moving).
func LoadContainer(tx store.Tx, account, name string) (c *Container, found bool, err error) {
	v, err := tx.Get(ContainerKey(account, name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	c, err = DecodeContainer(v)
	if err != nil {
		return nil, false, err
	}
	return c, !c.Hidden(), nil
}

func SaveContainer(tx store.Tx, account, name string, c *Container) error {
	return tx.Put(ContainerKey(account, name), c.encode())
}

// decodeACLBefore7 reads the ctagACL field records held before
// ctagPolicies: a count, then per identifier its Id, Start and Expiry each
// as a presence flag and, when present, Unix nanoseconds, and Permission.
// It is kept so that containers stored then keep their policies; the next
// write of the container stores them as ctagPolicies.
func decodeACLBefore7(p *record.Decoder) []accesspolicy.Identifier {
	n := p.Uvarint()
	var ids []accesspolicy.Identifier
	for i := uint64(0); i < n && p.Err() == nil; i++ {
		id := accesspolicy.Identifier{ID: p.Str()}
		id.Start = decodeOptionalTime(p)
		id.Expiry = decodeOptionalTime(p)
		id.Permission = p.Str()
		ids = append(ids, id)
	}
	return ids
}

// decodeOptionalTime reads one instant of a ctagACL field.
func decodeOptionalTime(d *record.Decoder) *time.Time {
	if !d.Bool() {
		return nil
	}
	t := time.Unix(0, d.Varint()).UTC()
	return &t
}

// Policy looks up a stored access policy for service SAS.
func (c *Container) Policy(id string) (*auth.AccessPolicy, error) {
	if c == nil {
		return nil, nil
	}
	return accesspolicy.Find(c.ACL, id), nil
}

// PublicLevel is what the container opens to anonymous callers: nothing
// while it is hidden (being deleted, soft-deleted or moving).
func (c *Container) PublicLevel() auth.PublicLevel {
	switch {
	case c == nil || c.Hidden():
		return auth.PublicNone
	case c.Public >= AccessContainer:
		return auth.PublicContainer
	case c.Public >= AccessBlob:
		return auth.PublicBlob
	}
	return auth.PublicNone
}

func (c *Container) Resource() cond.Resource {
	return cond.Resource{Exists: true, ETag: c.ETagString(), LastModified: c.ETag.Time()}
}
