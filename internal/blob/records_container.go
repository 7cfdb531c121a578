package blob

import (
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/etag"
	"github.com/lazuli-storage/lazuli/internal/lease"
	"github.com/lazuli-storage/lazuli/internal/store"
)

// recordFormat is the first byte of every container, blob and block record
// this package writes; a later format bumps it and keeps reading this one.
const recordFormat = 1

// Container record fields (tags of the tagged-field body).
const (
	ctagCore     = 1 // etag tick, creation time, public access, deleting flag
	ctagMetadata = 2
	ctagLease    = 3
	ctagACL      = 4
)

// Public access levels (x-ms-blob-public-access).
const (
	accessPrivate   byte = 0
	accessBlob      byte = 1
	accessContainer byte = 2
)

// containerRecord is the stored state of one container.
type containerRecord struct {
	ETag    etag.Tick
	Created time.Time
	Public  byte
	// Deleting is set while Delete Container removes the blobs in batches;
	// the container is then invisible and cannot be created again.
	Deleting bool
	Metadata metadata
	Lease    lease.Lease
	ACL      []signedIdentifier
}

// signedIdentifier is a stored access policy of a container.
type signedIdentifier struct {
	ID            string
	Start, Expiry *time.Time // nil when not set
	Permission    string
}

func containerKey(account, container string) []byte {
	return store.NewKey(store.SpaceContainer).Str(account).Str(container)
}

// containerPrefix is the key prefix of every container of account.
func containerPrefix(account string) []byte {
	return store.NewKey(store.SpaceContainer).Str(account)
}

func (c *containerRecord) encode() []byte {
	e := encoder{b: make([]byte, 0, 64)}
	e.byte(recordFormat)
	e.field(ctagCore, func(e *encoder) {
		e.fixed64(uint64(c.ETag))
		e.time(c.Created)
		e.byte(c.Public)
		e.bool(c.Deleting)
	})
	if len(c.Metadata) > 0 {
		e.field(ctagMetadata, c.Metadata.encode)
	}
	if c.Lease.ID != "" {
		e.field(ctagLease, func(e *encoder) { encodeLease(e, c.Lease) })
	}
	if len(c.ACL) > 0 {
		e.field(ctagACL, func(e *encoder) {
			e.uvarint(uint64(len(c.ACL)))
			for _, s := range c.ACL {
				e.str(s.ID)
				encodeOptionalTime(e, s.Start)
				encodeOptionalTime(e, s.Expiry)
				e.str(s.Permission)
			}
		})
	}
	return e.b
}

func decodeContainer(v []byte) (*containerRecord, error) {
	if len(v) == 0 || v[0] != recordFormat {
		return nil, errBadRecord
	}
	c := &containerRecord{}
	d := decoder{b: v[1:]}
	d.fields(func(tag byte, p *decoder) {
		switch tag {
		case ctagCore:
			c.ETag = etag.Tick(p.fixed64())
			c.Created = p.time()
			c.Public = p.byte()
			c.Deleting = p.bool()
		case ctagMetadata:
			c.Metadata = decodeMetadata(p)
		case ctagLease:
			c.Lease = decodeLease(p)
		case ctagACL:
			n := p.uvarint()
			for i := uint64(0); i < n && p.err == nil; i++ {
				s := signedIdentifier{ID: p.str()}
				s.Start = decodeOptionalTime(p)
				s.Expiry = decodeOptionalTime(p)
				s.Permission = p.str()
				c.ACL = append(c.ACL, s)
			}
		}
	})
	return c, d.err
}

func encodeLease(e *encoder, l lease.Lease) {
	e.str(l.ID)
	e.varint(int64(l.Duration))
	e.time(l.Expires)
	e.time(l.BreakEnds)
}

func decodeLease(d *decoder) lease.Lease {
	return lease.Lease{ID: d.str(), Duration: int(d.varint()), Expires: d.time(), BreakEnds: d.time()}
}

// loadContainer reads a container; found is false when it does not exist
// or is being deleted.
func loadContainer(tx store.Tx, account, name string) (c *containerRecord, found bool, err error) {
	v, err := tx.Get(containerKey(account, name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	c, err = decodeContainer(v)
	if err != nil {
		return nil, false, err
	}
	return c, !c.Deleting, nil
}

func saveContainer(tx store.Tx, account, name string, c *containerRecord) error {
	return tx.Put(containerKey(account, name), c.encode())
}

func encodeOptionalTime(e *encoder, t *time.Time) {
	e.bool(t != nil)
	if t != nil {
		e.varint(t.UnixNano())
	}
}

func decodeOptionalTime(d *decoder) *time.Time {
	if !d.bool() {
		return nil
	}
	t := time.Unix(0, d.varint()).UTC()
	return &t
}
