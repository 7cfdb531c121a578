package azurite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// plan is what reading a workspace produced: the record writes, to run in
// one store transaction, and what they import.
type plan struct {
	writes []func(store.Tx) error
	Counts
	// databases counts the Azurite databases found.
	databases int
}

func (p *plan) write(fn func(store.Tx) error) { p.writes = append(p.writes, fn) }

// lokiMeta is the bookkeeping LokiJS adds to every document: created is
// when it was inserted, in Unix milliseconds.
type lokiMeta struct {
	Created int64 `json:"created"`
}

func (m lokiMeta) time() time.Time { return time.UnixMilli(m.Created).UTC() }

// azLease is the lease state Azurite keeps on a container or blob
// document (its BlobLeaseSyncer and ContainerLeaseSyncer), beside the
// state and duration kind in its properties.
type azLease struct {
	ID              string     `json:"leaseId"`
	ExpireTime      *time.Time `json:"leaseExpireTime"`
	BreakTime       *time.Time `json:"leaseBreakTime"`
	DurationSeconds int        `json:"leaseDurationSeconds"`
}

// leaseOf turns Azurite's lease into Lazuli's instants (package lease):
// a fixed lease keeps its expiry, so one that ran out in Azurite reads as
// expired, and a break keeps its end, so a breaking lease becomes broken
// when it would have in Azurite.
func leaseOf(state, duration string, l azLease) (lease.Lease, error) {
	switch state {
	case "", "available":
		return lease.Lease{}, nil
	case "leased", "expired", "breaking", "broken":
	default:
		return lease.Lease{}, fmt.Errorf("unknown lease state %q", state)
	}
	out := lease.Lease{ID: strings.ToLower(l.ID), Duration: l.DurationSeconds}
	if duration == "infinite" {
		out.Duration = lease.Infinite
	}
	if l.ExpireTime != nil && out.Duration != lease.Infinite {
		out.Expires = l.ExpireTime.UTC()
	}
	switch state {
	case "breaking", "broken":
		if l.BreakTime == nil {
			return lease.Lease{}, fmt.Errorf("%s lease without a break time", state)
		}
		out.BreakEnds = l.BreakTime.UTC()
	}
	if state == "broken" {
		out.Duration = 0
	}
	if out.ID == "" {
		return lease.Lease{}, fmt.Errorf("%s lease without a lease ID", state)
	}
	return out, nil
}

// azIdentifier is a stored access policy as Azurite keeps it.
type azIdentifier struct {
	ID           string `json:"id"`
	AccessPolicy *struct {
		Start      string `json:"start"`
		Expiry     string `json:"expiry"`
		Permission string `json:"permission"`
	} `json:"accessPolicy"`
}

// policiesOf converts stored access policies.
func policiesOf(ids []azIdentifier) ([]accesspolicy.Identifier, error) {
	var out []accesspolicy.Identifier
	for _, id := range ids {
		p := accesspolicy.Identifier{ID: id.ID}
		if ap := id.AccessPolicy; ap != nil {
			p.Permission = ap.Permission
			var err error
			if p.Start, err = optionalTime(ap.Start); err != nil {
				return nil, fmt.Errorf("access policy %q: %w", id.ID, err)
			}
			if p.Expiry, err = optionalTime(ap.Expiry); err != nil {
				return nil, fmt.Errorf("access policy %q: %w", id.ID, err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func optionalTime(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, err
	}
	t = t.UTC()
	return &t, nil
}

// metadataOf is metadata in its stored form: names in lower case (as
// metadata.Parse keeps them), sorted by name.
func metadataOf(m map[string]string) metadata.Set {
	var set metadata.Set
	for k, v := range m {
		set = append(set, metadata.Pair{Name: strings.ToLower(k), Value: v})
	}
	slices.SortFunc(set, func(a, b metadata.Pair) int { return strings.Compare(a.Name, b.Name) })
	return set
}

// bytesOf reads a Node Buffer as LokiJS saves one: a JSON object of
// index to byte ({"0": 228, "1": 215, ...}), or a base64 string.
func bytesOf(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s []byte
	if raw[0] == '"' {
		err := json.Unmarshal(raw, &s) // base64, as encoding/json reads []byte
		return s, err
	}
	var m map[string]byte
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	out := make([]byte, len(m))
	for k, v := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= len(m) {
			return nil, fmt.Errorf("byte index %q out of range", k)
		}
		out[i] = v
	}
	return out, nil
}
