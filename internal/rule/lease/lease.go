// Package lease is the lease state machine of blobs, containers, files and
// shares (the Azure reference pages "Lease Blob", "Lease Container", "Lease
// File" and "Lease Share", learn.microsoft.com/rest/api/storageservices/
// lease-blob and its siblings), as pure functions of a stored Lease, a
// request and the current time.
//
// A Lease holds instants, never a state: whether it is leased, expired,
// breaking or broken is computed from those instants and now, so leases
// expire and breaks complete without timers or background writes, and every
// node gives the same answer. Services persist the Lease inside their own
// records, call Apply for Lease Blob/Container/File/Share, CheckWrite and
// CheckRead on every other operation, and AfterWrite after a successful
// blob or file write.
package lease

import "time"

// Kind is the resource a lease is on. It selects the error code names
// (containers have their own …WithContainerOperation codes; files and shares
// use the blob names), the message wording, and file lease rules (infinite
// only, no renew, immediate break).
type Kind int

// The kinds of leased resources.
const (
	Blob Kind = iota
	Container
	File
	Share
)

// noun is how Azure's messages name the resource.
func (k Kind) noun() string {
	switch k {
	case Container:
		return "container"
	case File:
		return "file"
	case Share:
		return "file share"
	default:
		return "blob"
	}
}

// Infinite is the Duration of a lease that never expires.
const Infinite = -1

// Fixed lease durations accepted by acquire, in seconds.
const (
	MinDuration = 15
	MaxDuration = 60
)

// MaxBreakPeriod is the longest x-ms-lease-break-period, in seconds.
const MaxBreakPeriod = 60

// Lease is the persisted lease of one resource. The zero value is a
// resource that was never leased (or whose lease was released).
type Lease struct {
	// ID is the lease ID in canonical lower-case GUID form; "" when available.
	ID string `json:"id,omitempty"`
	// Duration is Infinite or 15..60 seconds while leased; 0 once broken.
	Duration int `json:"duration,omitempty"`
	// Expires is the end of a fixed lease (zero for an infinite one).
	Expires time.Time `json:"expires,omitzero"`
	// BreakEnds is set by a break: the lease is breaking before this
	// instant and broken from it on. Zero when the lease was never broken.
	BreakEnds time.Time `json:"breakEnds,omitzero"`
}

// State is a lease state as reported in x-ms-lease-state.
type State string

// The lease states.
const (
	Available State = "available"
	Leased    State = "leased"
	Expired   State = "expired"
	Breaking  State = "breaking"
	Broken    State = "broken"
)

// State returns the lease state at now.
func (l Lease) State(now time.Time) State {
	switch {
	case l.ID == "":
		return Available
	case !l.BreakEnds.IsZero():
		if now.Before(l.BreakEnds) {
			return Breaking
		}
		return Broken
	case l.Duration == Infinite || now.Before(l.Expires):
		return Leased
	default:
		return Expired
	}
}

// active reports whether the lease locks the resource: leased or breaking.
func (s State) active() bool { return s == Leased || s == Breaking }

// Status returns x-ms-lease-status: "locked" while leased or breaking.
func (l Lease) Status(now time.Time) string {
	if l.State(now).active() {
		return "locked"
	}
	return "unlocked"
}

// DurationType returns x-ms-lease-duration: "infinite" or "fixed" while
// leased, "" otherwise (the header is then omitted).
func (l Lease) DurationType(now time.Time) string {
	if l.State(now) != Leased {
		return ""
	}
	if l.Duration == Infinite {
		return "infinite"
	}
	return "fixed"
}

// AfterWrite returns the lease to store after a successful write to a blob
// or file: an expired or broken lease is forgotten (the resource becomes
// available, so the old ID can no longer renew it), an active one is kept.
// Container and share services do not call it: their leases only guard
// deletion, and an expired container lease stays renewable.
func (l Lease) AfterWrite(now time.Time) Lease {
	switch l.State(now) {
	case Expired, Broken:
		return Lease{}
	default:
		return l
	}
}

// remaining is the time left on a fixed lease at now.
func (l Lease) remaining(now time.Time) time.Duration {
	return l.Expires.Sub(now)
}

// ceilSeconds rounds d up to whole seconds, never below zero.
func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}
