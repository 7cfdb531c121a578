// Package leaserecord is the binary record encoding of a lease.Lease, as
// blob, container, file and share records store it.
package leaserecord

import (
	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// Encode writes l: its ID, duration in seconds (-1 for infinite), expiry and
// the end of a break.
func Encode(e *record.Encoder, l lease.Lease) {
	e.Str(l.ID)
	e.Varint(int64(l.Duration))
	e.Time(l.Expires)
	e.Time(l.BreakEnds)
}

// Decode reads what Encode wrote.
func Decode(d *record.Decoder) lease.Lease {
	return lease.Lease{ID: d.Str(), Duration: int(d.Varint()), Expires: d.Time(), BreakEnds: d.Time()}
}
