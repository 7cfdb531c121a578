package dump

import (
	"fmt"
	"slices"
)

// unlabelled marks an extent no record has mentioned yet.
const unlabelled = -1

// extentEntry is one referenced extent of the source.
type extentEntry struct {
	id    string
	ref   []byte // its reference-count record's value, copied as is
	label int
}

// extentSet holds the source's referenced extents by ID and in label order.
type extentSet struct {
	byID     map[string]*extentEntry
	labelled []*extentEntry
}

func newExtentSet() *extentSet { return &extentSet{byID: map[string]*extentEntry{}} }

// add records a referenced extent. Only IDs of the shape engines draw can be
// found again inside records, so any other is refused.
func (s *extentSet) add(id string, refValue []byte) error {
	if !isID([]byte(id)) {
		return fmt.Errorf("dump: extent ID %q is not %d lower-case hexadecimal digits: records naming it could not be rewritten", id, idLen)
	}
	s.byID[id] = &extentEntry{id: id, ref: refValue, label: unlabelled}
	return nil
}

// label returns e's label, giving it the next one if it has none.
func (s *extentSet) label(e *extentEntry) uint64 {
	if e.label == unlabelled {
		e.label = len(s.labelled)
		s.labelled = append(s.labelled, e)
	}
	return uint64(e.label)
}

// labelRest labels, in ID order, the extents no record mentioned: only a
// bookkeeping fault can leave a reference count without a record, but the
// count is copied, so the extent is too.
func (s *extentSet) labelRest() {
	var rest []*extentEntry
	for _, e := range s.byID {
		if e.label == unlabelled {
			rest = append(rest, e)
		}
	}
	slices.SortFunc(rest, func(a, b *extentEntry) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	for _, e := range rest {
		s.label(e)
	}
}

// find appends to refs every reference to a known extent in field, whose
// first byte is at position base of its record, labelling extents as they
// are first met. A reference is a window of idLen lower-case hexadecimal
// digits equal to a known ID; every window of a longer hexadecimal run is
// tried, so a reference next to other digits is still found.
func (s *extentSet) find(refs []ref, field []byte, base int) []ref {
	run := 0
	for i := 0; i < len(field); i++ {
		if !isHexDigit(field[i]) {
			run = 0
			continue
		}
		run++
		if run < idLen {
			continue
		}
		start := i + 1 - idLen
		e, ok := s.byID[string(field[start:i+1])]
		if !ok {
			continue
		}
		refs = append(refs, ref{pos: base + start, label: s.label(e)})
		run = 0
	}
	return refs
}

// findAll finds the references in a record's key and value.
func (s *extentSet) findAll(refs []ref, key, value []byte) []ref {
	refs = s.find(refs[:0], key, 0)
	return s.find(refs, value, len(key))
}

func isHexDigit(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// isID reports whether b has the shape of an extent ID.
func isID(b []byte) bool {
	if len(b) != idLen {
		return false
	}
	for _, c := range b {
		if !isHexDigit(c) {
			return false
		}
	}
	return true
}
