package accesspolicy

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

// The stored form of a resource's identifiers, in the codec of package
// record, is one layout for the four services, each of which puts it in a
// tagged field of its resource record:
//
//	Uvarint(count), then per identifier:
//	  Str(Id)
//	  Byte(present)       bit 0: a Start follows, bit 1: an Expiry follows
//	  [Varint(seconds) Uvarint(nanoseconds)]   Start, when present
//	  [Varint(seconds) Uvarint(nanoseconds)]   Expiry, when present
//	  Str(Permission)     "" when unset
//
// An instant is Unix seconds and nanoseconds rather than one count of
// nanoseconds because an int64 of nanoseconds ends in 2262, and the usual
// "never" expiry a client sets is 9999-12-31; a presence bit rather than a
// reserved value because the Unix epoch itself is a valid Start.
//
// The layout is a stored format: records written with it must keep
// decoding, so nothing here may change how a value is written. A later
// layout goes in a new field tag of the resource record.
const (
	hasStart  = 1 << 0
	hasExpiry = 1 << 1
)

// EncodeRecord appends ids in the stored form.
func EncodeRecord(e *record.Encoder, ids []Identifier) {
	e.Uvarint(uint64(len(ids)))
	for _, id := range ids {
		e.Str(id.ID)
		var present byte
		if id.Start != nil {
			present |= hasStart
		}
		if id.Expiry != nil {
			present |= hasExpiry
		}
		e.Byte(present)
		encodeInstant(e, id.Start)
		encodeInstant(e, id.Expiry)
		e.Str(id.Permission)
	}
}

// DecodeRecord reads what EncodeRecord wrote. Malformed input (unknown
// presence bits, nanoseconds past a second) fails d; the caller checks
// d.Err.
func DecodeRecord(d *record.Decoder) []Identifier {
	n := d.Count()
	if n == 0 {
		return nil
	}
	ids := make([]Identifier, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		id := Identifier{ID: d.Str()}
		present := d.Byte()
		if present&^(hasStart|hasExpiry) != 0 {
			d.Fail()
			return nil
		}
		if present&hasStart != 0 {
			id.Start = decodeInstant(d)
		}
		if present&hasExpiry != 0 {
			id.Expiry = decodeInstant(d)
		}
		id.Permission = d.Str()
		ids = append(ids, id)
	}
	if d.Err() != nil {
		return nil
	}
	return ids
}

// encodeInstant appends t, when set, as Unix seconds and nanoseconds.
func encodeInstant(e *record.Encoder, t *time.Time) {
	if t == nil {
		return
	}
	e.Varint(t.Unix())
	e.Uvarint(uint64(t.Nanosecond()))
}

func decodeInstant(d *record.Decoder) *time.Time {
	sec, nsec := d.Varint(), d.Uvarint()
	if nsec >= uint64(time.Second) {
		d.Fail()
		return nil
	}
	t := time.Unix(sec, int64(nsec)).UTC()
	return &t
}
