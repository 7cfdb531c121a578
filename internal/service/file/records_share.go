package file

import (
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/leaserecord"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// Key layout, in the file service's spaces of package store. snap is ""
// for the live share and the snapshot's x-ms-snapshot instant otherwise;
// parent and name are case-folded (see filePath.key).
//
//	SpaceShare     Str(account) Str(share) Str(snap)                          -> share record
//	SpaceFile      Str(account) Str(share) Str(snap) Str(parent) Str(name)    -> node record (the root: "", "")
//	SpaceFileIndex Str(account) Str(share) Str(snap) Str("r") Uint(id) Uint(offset) -> range segment
//	SpaceFileIndex Str(account) Str(share) Str(snap) Str("l") Uint(id)        -> link record (a hard-linked file's state)
//	SpaceFileIndex Str(account) Str(share) Str("")   Str("p") Str(key)        -> file permission
//	SpaceShareExpiry Uint(purge) Str(account) Str(tombstone)                  -> nil (a deleted share's purge)
//
// Everything a share owns starts with (account, share, snap) in one of the
// three spaces, so deleting a share or a snapshot is three prefix scans. A
// soft-deleted share's records wait under a tombstone share name
// (keymove.Tombstone), which no request can address.

// Share record fields (tags).
const (
	stagCore      = 1 // etag, created, quota, usage
	stagMetadata  = 2
	stagLease     = 3
	stagACL       = 4 // the stored access policies as written before stagPolicies; read only
	stagTier      = 5 // access tier and when it changed
	stagProtocols = 6 // enabled protocols, root squash
	stagTierFrom  = 8 // the tier a tier change left (stagPremium is 7)
	stagPolicies  = 9 // the stored access policies, in accesspolicy's stored form
)

// shareRecord is the stored state of a share or share snapshot.
type shareRecord struct {
	ETag    etag.Tick
	Created time.Time
	// Quota is the share's size limit in GiB.
	Quota int64
	// Usage is the sum of the sizes of the share's files: what Get Share
	// Stats reports and what the quota limits.
	Usage       int64
	Metadata    metadata.Set
	Lease       lease.Lease
	ACL         []accesspolicy.Identifier
	AccessTier  string
	TierChanged time.Time
	// TierFrom is the tier the last Set Share Properties tier change left,
	// "" for a share whose tier never changed (see tierTransitionState).
	TierFrom   string
	Protocols  string
	RootSquash string
	premium    premiumShare
	shareLife
}

// LastModified is the instant of the share's current ETag.
func (s *shareRecord) LastModified() time.Time { return s.ETag.Time() }

func shareKey(account, share, snap string) []byte {
	return store.NewKey(store.SpaceShare).Str(account).Str(share).Str(snap)
}

// sharePrefix is the key prefix of a share and all its snapshots.
func sharePrefix(account, share string) []byte {
	return store.NewKey(store.SpaceShare).Str(account).Str(share)
}

func (s *shareRecord) encode() []byte {
	e := record.NewEncoder(64)
	e.Byte(recordFormat)
	e.Field(stagCore, func(e *record.Encoder) {
		e.Uvarint(uint64(s.ETag))
		e.Time(s.Created)
		e.Varint(s.Quota)
		e.Varint(s.Usage)
	})
	if len(s.Metadata) > 0 {
		e.Field(stagMetadata, s.Metadata.Encode)
	}
	if s.Lease.ID != "" {
		e.Field(stagLease, func(e *record.Encoder) { leaserecord.Encode(e, s.Lease) })
	}
	if len(s.ACL) > 0 {
		e.Field(stagPolicies, func(e *record.Encoder) { accesspolicy.EncodeRecord(e, s.ACL) })
	}
	if s.AccessTier != "" {
		e.Field(stagTier, func(e *record.Encoder) { e.Str(s.AccessTier); e.Time(s.TierChanged) })
	}
	if s.TierFrom != "" {
		e.Field(stagTierFrom, func(e *record.Encoder) { e.Str(s.TierFrom) })
	}
	if s.Protocols != "" || s.RootSquash != "" {
		e.Field(stagProtocols, func(e *record.Encoder) { e.Str(s.Protocols); e.Str(s.RootSquash) })
	}
	s.premium.encode(&e)
	s.shareLife.encode(&e)
	return e.Bytes()
}

func decodeShare(v []byte) (*shareRecord, error) {
	if len(v) == 0 || v[0] != recordFormat {
		return nil, record.ErrMalformed
	}
	s := &shareRecord{}
	d := record.NewDecoder(v[1:])
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case stagCore:
			s.ETag = etag.Tick(p.Uvarint())
			s.Created = p.Time()
			s.Quota = p.Varint()
			s.Usage = p.Varint()
		case stagMetadata:
			s.Metadata = metadata.Decode(p)
		case stagLease:
			s.Lease = leaserecord.Decode(p)
		case stagACL:
			s.ACL = decodeACLBefore9(p)
		case stagPolicies:
			s.ACL = accesspolicy.DecodeRecord(p)
		case stagTier:
			s.AccessTier, s.TierChanged = p.Str(), p.Time()
		case stagProtocols:
			s.Protocols, s.RootSquash = p.Str(), p.Str()
		case stagTierFrom:
			s.TierFrom = p.Str()
		case stagPremium:
			s.premium.decode(p)
		case stagLife:
			s.shareLife.decode(p)
		}
	})
	return s, d.Err()
}

// loadShare reads a share (snap "") or share snapshot record; found is
// false when there is none.
func loadShare(tx store.Tx, account, share, snap string) (*shareRecord, bool, error) {
	v, err := tx.Get(shareKey(account, share, snap))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s, err := decodeShare(v)
	return s, err == nil, err
}

func saveShare(tx store.Tx, account, share, snap string, s *shareRecord) error {
	return tx.Put(shareKey(account, share, snap), s.encode())
}

// decodeACLBefore9 reads the stagACL field records held before
// stagPolicies: per identifier its Id, Start and Expiry as record.Time (0
// when unset) and Permission. It is kept so that shares stored then keep
// their policies; the next write of the share stores them as stagPolicies.
func decodeACLBefore9(p *record.Decoder) []accesspolicy.Identifier {
	n := p.Count()
	var ids []accesspolicy.Identifier
	for i := 0; i < n && p.Err() == nil; i++ {
		id := accesspolicy.Identifier{ID: p.Str()}
		if start := p.Time(); !start.IsZero() {
			id.Start = &start
		}
		if expiry := p.Time(); !expiry.IsZero() {
			id.Expiry = &expiry
		}
		id.Permission = p.Str()
		ids = append(ids, id)
	}
	return ids
}
