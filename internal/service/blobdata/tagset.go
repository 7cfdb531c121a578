package blobdata

import (
	"sort"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

// MaxTags is the most index tags a blob has (Set Blob Tags).
const MaxTags = 10

// Tag is one blob index tag.
type Tag struct{ Key, Value string }

// TagSet is a blob's index tags, sorted by key, keys unique.
type TagSet []Tag

// Get returns the value of key and whether the set has it.
func (s TagSet) Get(key string) (string, bool) {
	i := sort.Search(len(s), func(i int) bool { return s[i].Key >= key })
	if i < len(s) && s[i].Key == key {
		return s[i].Value, true
	}
	return "", false
}

func (s TagSet) Equal(o TagSet) bool {
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

func (s TagSet) Encode(e *record.Encoder) {
	e.Uvarint(uint64(len(s)))
	for _, t := range s {
		e.Str(t.Key)
		e.Str(t.Value)
	}
}

func DecodeTagSet(d *record.Decoder) TagSet {
	n := d.Uvarint()
	if n > MaxTags*4 || d.Err() != nil {
		d.Fail()
		return nil
	}
	s := make(TagSet, 0, n)
	for i := uint64(0); i < n && d.Err() == nil; i++ {
		s = append(s, Tag{Key: d.Str(), Value: d.Str()})
	}
	return s
}
