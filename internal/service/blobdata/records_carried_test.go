package blobdata

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/etag"
)

// azuriteETag is an ETag as Azurite issues them, not a tick of this server.
const azuriteETag = "0x1E223B9B3050E40"

// The carried ETag is appended after every field an older record has: a
// record without it keeps its stored encoding (the golden test), one with
// it is that encoding followed by this field, and the first record written
// after the tick moved is again one without it.
func TestCarriedETagFieldEncoding(t *testing.T) {
	// Tag, length 26, the tick it belongs to, the ETag.
	field := func(tag string, tick string) string {
		return tag + "1a" + tick + "11" + hex.EncodeToString([]byte(azuriteETag))
	}
	b := goldenBlob()
	b.CarriedETag = etag.Carried{At: b.ETag, Text: azuriteETag}
	c := goldenContainer()
	c.CarriedETag = etag.Carried{At: c.ETag, Text: azuriteETag}
	for _, r := range []struct {
		what            string
		encoded, stored string
		wantField       string
	}{
		{"blob", hex.EncodeToString(b.Encode()), storedBlob, field("1a", "0000010000000000")},
		{"container", hex.EncodeToString(c.encode()), storedContainer, field("09", "0000000000000063")},
	} {
		if r.encoded != r.stored+r.wantField {
			t.Errorf("%s encodes to\n%s\nwant the stored record followed by %s", r.what, r.encoded, r.wantField)
		}
	}
	if back, err := DecodeBlob(b.Encode()); err != nil || !reflect.DeepEqual(back, b) || back.ETagString() != `"`+azuriteETag+`"` ||
		back.ETagBare() != azuriteETag {
		t.Errorf("blob decoded to %+v (%v)", back, err)
	}
	if back, err := DecodeContainer(c.encode()); err != nil || !reflect.DeepEqual(back, c) || back.ETagString() != `"`+azuriteETag+`"` {
		t.Errorf("container decoded to %+v (%v)", back, err)
	}

	b.ETag, c.ETag = b.ETag+1, c.ETag+1 // as a write moves them
	without, cWithout := goldenBlob(), goldenContainer()
	without.ETag, cWithout.ETag = b.ETag, c.ETag
	if !bytes.Equal(b.Encode(), without.Encode()) || !bytes.Equal(c.encode(), cWithout.encode()) {
		t.Errorf("a record whose tick moved still holds the carried ETag")
	}
	if b.ETagString() != b.ETag.String() || b.ETagBare() != b.ETag.Bare() || c.ETagString() != c.ETag.String() {
		t.Errorf("after the tick moved the ETags are %s, %s, %s", b.ETagString(), b.ETagBare(), c.ETagString())
	}
}
