package blobdata

import (
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

// premiumTiers are the disk tiers and their largest sizes, smallest first.
var premiumTiers = []struct {
	name  string
	limit int64
}{
	{"P4", 32 << 30}, {"P6", 64 << 30}, {"P10", 128 << 30}, {"P15", 256 << 30},
	{"P20", 512 << 30}, {"P30", 1024 << 30}, {"P40", 2048 << 30}, {"P50", 4096 << 30},
	{"P60", 8192 << 30}, {"P70", 16384 << 30}, {"P80", 32767 << 30},
}

// smallestInferredTier is the tier a small premium page blob is given.
const smallestInferredTier = "P10"

// PremiumTier returns the canonical name and size limit of a tier name
// (any case); ok is false for a name that is no premium tier.
func PremiumTier(raw string) (name string, limit int64, ok bool) {
	for _, t := range premiumTiers {
		if strings.EqualFold(raw, t.name) {
			return t.name, t.limit, true
		}
	}
	return "", 0, false
}

// inferredPremiumTier is the tier a premium page blob of size bytes has
// when none was set: the smallest from P10 up that holds it.
func inferredPremiumTier(size int64) string {
	inferred := false
	for _, t := range premiumTiers {
		inferred = inferred || t.name == smallestInferredTier
		if inferred && size <= t.limit {
			return t.name
		}
	}
	return premiumTiers[len(premiumTiers)-1].name
}

// btagPremium marks a page blob of a premium account in its record.
const btagPremium = 31

func encodePremium(e *record.Encoder, premium bool) {
	if premium {
		e.Field(btagPremium, func(e *record.Encoder) { e.Bool(true) })
	}
}
