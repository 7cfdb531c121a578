package queue

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/cpubench"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

// The message record in the codec of package record, for comparison with
// the hand-written layout of record.go (see its doc comment for the
// figures). Two forms: positional, the same fields in the same order
// written with the codec's primitives; and tagged, the format byte then
// tagged fields, as the blob and file records are written.
const (
	msgFormatCodec = 2
	mtagCore       = 1 // inserted, expires, nonce (fixed64), dequeues (uvarint)
	mtagText       = 2
)

var errBadCodecMessage = errors.New("queue: malformed message record")

func encodeMessagePositional(m *message) []byte {
	e := record.NewEncoder(1 + 3*8 + 5 + 3 + len(m.Text))
	e.Byte(msgFormatCodec)
	e.Fixed64(m.Inserted)
	e.Fixed64(m.Expires)
	e.Fixed64(m.Nonce)
	e.Uvarint(uint64(m.Dequeues))
	e.Raw(m.Text)
	return e.Bytes()
}

func decodeMessagePositional(v []byte, m *message) error {
	d := record.NewDecoder(v)
	if d.Byte() != msgFormatCodec {
		return errBadCodecMessage
	}
	m.Inserted = d.Fixed64()
	m.Expires = d.Fixed64()
	m.Nonce = d.Fixed64()
	m.Dequeues = uint32(d.Uvarint())
	m.Text = d.Raw()
	if d.Err() != nil || d.Len() != 0 {
		return errBadCodecMessage
	}
	return nil
}

func expiredPositional(v []byte, now uint64) bool {
	d := record.NewDecoder(v)
	d.Byte()
	d.Fixed64()
	return d.Fixed64() <= now && d.Err() == nil
}

// encodeMessageTagged writes the text after its tag by hand rather than
// through Encoder.Field, as blobdata writes a blob's segments, so that the
// text is copied once.
func encodeMessageTagged(m *message) []byte {
	e := record.NewEncoder(1 + 2 + 3*8 + 5 + 4 + len(m.Text))
	e.Byte(msgFormatCodec)
	e.Field(mtagCore, func(e *record.Encoder) {
		e.Fixed64(m.Inserted)
		e.Fixed64(m.Expires)
		e.Fixed64(m.Nonce)
		e.Uvarint(uint64(m.Dequeues))
	})
	e.Byte(mtagText)
	e.Raw(m.Text)
	return e.Bytes()
}

func decodeMessageTagged(v []byte, m *message) error {
	d := record.NewDecoder(v)
	if d.Byte() != msgFormatCodec {
		return errBadCodecMessage
	}
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case mtagCore:
			m.Inserted = p.Fixed64()
			m.Expires = p.Fixed64()
			m.Nonce = p.Fixed64()
			m.Dequeues = uint32(p.Uvarint())
		case mtagText:
			m.Text = p.Rest()
		}
	})
	if d.Err() != nil {
		return errBadCodecMessage
	}
	return nil
}

// expiredTagged reads the core field without the Fields walk, the
// cheapest way the codec offers to reach one value.
func expiredTagged(v []byte, now uint64) bool {
	d := record.NewDecoder(v)
	d.Byte()
	if d.Byte() != mtagCore {
		return false
	}
	p := record.NewDecoder(d.Raw())
	p.Fixed64()
	return p.Fixed64() <= now && p.Err() == nil
}

// messageCodec is one way of storing a message value.
type messageCodec struct {
	name    string
	encode  func(*message) []byte
	decode  func([]byte, *message) error
	expired func([]byte, uint64) bool
}

var messageCodecs = []messageCodec{
	{"hand", encodeValue, decodeValue, valueExpired},
	{"positional", encodeMessagePositional, decodeMessagePositional, expiredPositional},
	{"tagged", encodeMessageTagged, decodeMessageTagged, expiredTagged},
}

// typicalMessage is a message of a 1 KiB text, dequeued once.
func typicalMessage() *message {
	return &message{Inserted: 1764316800123456789, Expires: 1764921600123456789, Nonce: 0x5eed5eed5eed5eed, Dequeues: 1,
		Text: []byte(strings.Repeat("a message text of exactly 1 KiB ", 32))}
}

// The compared forms hold the same message, so the benchmarks compare the
// same work.
func TestMessageCodecsAgree(t *testing.T) {
	want := typicalMessage()
	if len(want.Text) != 1024 {
		t.Fatalf("the typical text is %d bytes, not 1 KiB", len(want.Text))
	}
	for _, c := range messageCodecs {
		v := c.encode(want)
		var got message
		if err := c.decode(v, &got); err != nil || !sameValue(&got, want) {
			t.Errorf("%s: decoded to %+v (%v)", c.name, got, err)
		}
		if c.expired(v, want.Expires-1) || !c.expired(v, want.Expires) {
			t.Errorf("%s: expiry read wrong", c.name)
		}
		if err := c.decode(v[:len(v)-1], &got); err == nil && bytes.Equal(got.Text, want.Text) {
			t.Errorf("%s: a truncated value decoded whole", c.name)
		}
	}
}

func BenchmarkMessageEncode(b *testing.B) {
	m := typicalMessage()
	for _, c := range messageCodecs {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpubench.Loop(b, func() { c.encode(m) })
			// After the loop, which would reset it.
			b.ReportMetric(float64(len(c.encode(m))), "bytes/record")
		})
	}
}

func BenchmarkMessageDecode(b *testing.B) {
	for _, c := range messageCodecs {
		v := c.encode(typicalMessage())
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var m message
			cpubench.Loop(b, func() {
				if err := c.decode(v, &m); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkMessageExpired is the check Get Messages and the reaper make on
// every message they pass.
func BenchmarkMessageExpired(b *testing.B) {
	for _, c := range messageCodecs {
		v := c.encode(typicalMessage())
		b.Run(c.name, func(b *testing.B) {
			cpubench.Loop(b, func() {
				if c.expired(v, 1) {
					b.Fatal("expired")
				}
			})
		})
	}
}
