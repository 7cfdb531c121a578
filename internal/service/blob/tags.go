package blob

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Blob index tag limits (Set Blob Tags): at most ten tags per blob
// (blobdata.MaxTags), keys of 1 to 128 characters, values of at most
// 256, drawn from letters, digits, space and + - . / : = _.
const (
	maxTagKeyLen   = 128
	maxTagValueLen = 256
	// maxTagsBody bounds a Set Blob Tags body: ten maximal tags in XML are
	// far below it.
	maxTagsBody = 64 << 10
)

// newTagSet validates tags as Set Blob Tags and x-ms-tags do and sorts them.
func newTagSet(tags []blobdata.Tag) (blobdata.TagSet, error) {
	if len(tags) > blobdata.MaxTags {
		return nil, azerr.New(azerr.TagsTooLarge)
	}
	for _, t := range tags {
		switch {
		case t.Key == "":
			return nil, azerr.New(azerr.EmptyTagName)
		case len(t.Key) > maxTagKeyLen || len(t.Value) > maxTagValueLen:
			return nil, azerr.New(azerr.TagsTooLarge)
		case !validTagText(t.Key) || !validTagText(t.Value):
			return nil, azerr.New(azerr.InvalidTag)
		}
	}
	s := blobdata.TagSet(tags)
	sort.Slice(s, func(i, j int) bool { return s[i].Key < s[j].Key })
	for i := 1; i < len(s); i++ {
		if s[i].Key == s[i-1].Key {
			return nil, azerr.New(azerr.DuplicateTagNames)
		}
	}
	if len(s) == 0 {
		return nil, nil
	}
	return s, nil
}

// validTagText reports whether s uses only the characters tags allow.
func validTagText(s string) bool { return invalidTagChar(s) < 0 }

// invalidTagChar is the index of the first character of s that tags do not
// allow (letters, digits, space and + - . / : = _), or -1.
func invalidTagChar(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte(" +-./:=_", c) >= 0:
		default:
			return i
		}
	}
	return -1
}

// parseTagsHeader reads x-ms-tags: key=value pairs joined by '&', each
// part query-escaped (the SDKs use url.QueryEscape, so '+' is a space).
// Absent is nil.
func parseTagsHeader(raw string) (blobdata.TagSet, error) {
	if raw == "" {
		return nil, nil
	}
	var tags []blobdata.Tag
	for _, pair := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(pair, "=")
		key, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, azerr.InvalidHeader("x-ms-tags", raw)
		}
		tags = append(tags, blobdata.Tag{Key: key, Value: value})
	}
	return newTagSet(tags)
}

// tagsXML is the body of Set Blob Tags and Get Blob Tags.
type tagsXML struct {
	XMLName xml.Name `xml:"Tags"`
	Set     []struct {
		Key   *string `xml:"Key"`
		Value *string `xml:"Value"`
	} `xml:"TagSet>Tag"`
}

// parseTagsBody reads a Set Blob Tags body. An empty body clears the tags.
func parseTagsBody(data []byte) (blobdata.TagSet, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc tagsXML
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	tags := make([]blobdata.Tag, 0, len(doc.Set))
	for _, t := range doc.Set {
		if t.Key == nil {
			return nil, azerr.New(azerr.EmptyTagName)
		}
		value := ""
		if t.Value != nil {
			value = *t.Value
		}
		tags = append(tags, blobdata.Tag{Key: *t.Key, Value: value})
	}
	return newTagSet(tags)
}

// writeTagSet writes <Tags><TagSet>...</TagSet></Tags> for the tags keep
// accepts (all when keep is nil).
func writeTagSet(x *xmlWriter, s blobdata.TagSet, keep func(key string) bool) {
	x.Open("Tags")
	x.Open("TagSet")
	for _, t := range s {
		if keep != nil && !keep(t.Key) {
			continue
		}
		x.Open("Tag")
		x.Elem("Key", t.Key)
		x.Elem("Value", t.Value)
		x.Close("Tag")
	}
	x.Close("TagSet")
	x.Close("Tags")
}
