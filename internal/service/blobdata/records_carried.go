package blobdata

import (
	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
)

// An imported container or blob state keeps the ETag the emulator it came
// from answered (etag.Carried) in a field of its own, written only while
// that ETag is current: a record without one pays nothing, and the first
// record written after the object's tick moves drops the field.
const (
	btagCarriedETag = 26
	ctagCarriedETag = 9
)

func encodeCarried(e *record.Encoder, tag byte, tick etag.Tick, c etag.Carried) {
	if !c.Current(tick) {
		return
	}
	e.Field(tag, func(e *record.Encoder) {
		e.Fixed64(uint64(c.At))
		e.Str(c.Text)
	})
}

func decodeCarried(p *record.Decoder) etag.Carried {
	return etag.Carried{At: etag.Tick(p.Fixed64()), Text: p.Str()}
}

// ETagString is the blob state's ETag as the ETag header gives it.
func (b *Blob) ETagString() string { return b.CarriedETag.Quoted(b.ETag) }

// ETagBare is the blob state's ETag without quotes, as List Blobs lists it.
func (b *Blob) ETagBare() string { return b.CarriedETag.Bare(b.ETag) }

// ETagString is the container's ETag as the ETag header and List
// Containers give it.
func (c *Container) ETagString() string { return c.CarriedETag.Quoted(c.ETag) }
