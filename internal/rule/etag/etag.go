// Package etag issues the ETags and modification instants of blobs,
// containers, queues, shares and files.
//
// An ETag is "0x" plus the upper-case hex of a tick: a count of 100 ns
// intervals since 0001-01-01 (the .NET epoch the real service uses). A new tick
// is max(now, last tick issued by this process + 1, previous tick of the same
// object + 1): strictly increasing per object even across restarts, nodes and
// clock steps backwards, because the object's previous tick is read in the
// same serializable transaction that writes the new one. No global counter
// record is needed, so writes to different objects never contend.
package etag

import (
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// epochOffset is the number of ticks between 0001-01-01 and 1970-01-01.
const epochOffset = 621355968000000000

var lastIssued atomic.Uint64

// Tick is a 100 ns instant since 0001-01-01 UTC.
type Tick uint64

// FromTime converts t to a Tick.
func FromTime(t time.Time) Tick {
	return Tick(uint64(t.UnixNano()/100) + epochOffset)
}

// Time converts the tick back to a UTC time.
func (t Tick) Time() time.Time {
	return time.Unix(0, int64(uint64(t)-epochOffset)*100).UTC()
}

// String renders the quoted ETag, e.g. "0x8D7FADAB3EA4124".
func (t Tick) String() string {
	return `"` + t.Bare() + `"`
}

// Bare renders the ETag without quotes, as List Blobs lists it
// (<Etag>0x8D7FADAB3EA4124</Etag>, in the service's recorded answers).
func (t Tick) Bare() string {
	return "0x" + strings.ToUpper(strconv.FormatUint(uint64(t), 16))
}

// Next issues a new tick for an object whose previous tick was prev (0 for a
// new object), at wall time now.
func Next(now time.Time, prev Tick) Tick {
	want := FromTime(now)
	if want <= prev {
		want = prev + 1
	}
	for {
		last := lastIssued.Load()
		next := want
		if Tick(last) >= next {
			next = Tick(last + 1)
		}
		if lastIssued.CompareAndSwap(last, uint64(next)) {
			return next
		}
	}
}

// Parse reads an ETag as rendered by String (quotes optional).
func Parse(s string) (Tick, bool) {
	s = strings.Trim(s, `"`)
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return 0, false
	}
	n, err := strconv.ParseUint(s[2:], 16, 64)
	return Tick(n), err == nil
}
