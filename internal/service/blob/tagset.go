package blob

import (
	"sort"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

// maxTags is the most index tags a blob has (Set Blob Tags).
const maxTags = 10

// tag is one blob index tag.
type tag struct{ Key, Value string }

// tagSet is a blob's index tags, sorted by key, keys unique.
type tagSet []tag

// get returns the value of key and whether the set has it.
func (s tagSet) get(key string) (string, bool) {
	i := sort.Search(len(s), func(i int) bool { return s[i].Key >= key })
	if i < len(s) && s[i].Key == key {
		return s[i].Value, true
	}
	return "", false
}

func (s tagSet) equal(o tagSet) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

func (s tagSet) encode(e *record.Encoder) {
	e.Uvarint(uint64(len(s)))
	for _, t := range s {
		e.Str(t.Key)
		e.Str(t.Value)
	}
}

func decodeTagSet(d *record.Decoder) tagSet {
	n := d.Uvarint()
	if n > maxTags*4 || d.Err() != nil {
		d.Fail()
		return nil
	}
	s := make(tagSet, 0, n)
	for i := uint64(0); i < n && d.Err() == nil; i++ {
		s = append(s, tag{Key: d.Str(), Value: d.Str()})
	}
	return s
}
