package blobdata

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Blob record fields of the retention state.
const (
	btagExpiry       = 19 // expiry instant (service/blob expiry.go)
	btagImmutability = 20 // immutability policy (service/blob immutability.go)
	btagLegalHold    = 21 // legal hold flag
)

// Immutability policy modes, as Get Blob Properties answers them.
const (
	PolicyUnlocked = "unlocked"
	PolicyLocked   = "locked"
)

// RetentionState is what Set Blob Expiry, the immutability policies and
// legal holds add to a blob record. Like the identity state it is stored
// as instants: a blob expires and a policy ends by the clock passing an
// instant, so every node answers alike without a timer.
type RetentionState struct {
	// ExpiresOn is when the base blob disappears; zero when it never does.
	// Snapshots and versions never carry one (frozen clears it).
	ExpiresOn time.Time
	// ImmutableUntil and ImmutableMode are the version's immutability
	// policy; the mode is "" when there is none.
	ImmutableUntil time.Time
	ImmutableMode  string
	// LegalHold is the version's legal hold, and LegalHoldSet whether one
	// was ever set (x-ms-legal-hold is absent until then).
	LegalHold, LegalHoldSet bool
}

// ExpiredAt reports whether the blob's expiry has come at now. A blob
// that a legal hold or an immutability policy protects does not expire
// until it is no longer protected.
func (s *RetentionState) ExpiredAt(now time.Time) bool {
	return !s.ExpiresOn.IsZero() && !now.Before(s.ExpiresOn) && s.Protection(now) == nil
}

func (s *RetentionState) encode(e *record.Encoder) {
	if !s.ExpiresOn.IsZero() {
		e.Field(btagExpiry, func(e *record.Encoder) { e.Time(s.ExpiresOn) })
	}
	if s.ImmutableMode != "" {
		e.Field(btagImmutability, func(e *record.Encoder) {
			e.Time(s.ImmutableUntil)
			e.Bool(s.ImmutableMode == PolicyLocked)
		})
	}
	if s.LegalHoldSet {
		e.Field(btagLegalHold, func(e *record.Encoder) { e.Bool(s.LegalHold) })
	}
}

// decodeField reads one of the retention tags of a blob record.
func (s *RetentionState) decodeField(tag byte, p *record.Decoder) {
	switch tag {
	case btagExpiry:
		s.ExpiresOn = p.Time()
	case btagImmutability:
		s.ImmutableUntil = p.Time()
		s.ImmutableMode = PolicyUnlocked
		if p.Bool() {
			s.ImmutableMode = PolicyLocked
		}
	case btagLegalHold:
		s.LegalHoldSet, s.LegalHold = true, p.Bool()
	}
}

// Protection is the error a delete or in-place change of the version
// meets at now, nil when nothing protects it. A legal hold is named first.
func (s *RetentionState) Protection(now time.Time) error {
	switch {
	case s.LegalHold:
		return azerr.New(azerr.BlobImmutableDueToLegalHold)
	case s.ImmutableMode != "" && now.Before(s.ImmutableUntil):
		return azerr.New(azerr.BlobImmutableDueToPolicy)
	}
	return nil
}
