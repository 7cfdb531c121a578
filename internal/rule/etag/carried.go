package etag

import "fmt"

// Carried is an ETag another server answered for an object whose record
// was imported here (internal/tool/azurite), with the tick the import gave
// the object. Azurite's ETags are not ticks ("0x" and the hex of its
// milliseconds times a random 70,000-100,000), so the object's tick keeps
// its Last-Modified and the ETag clients hold rides beside it.
//
// The carried ETag is the object's while the object's tick is still At:
// the first write after the import issues a new tick, as every write
// does, and so retires it without that write knowing of it; operations
// that keep the tick (a lease, Set Blob Tier) keep it too.
type Carried struct {
	At Tick
	// Text is the ETag without its quotes; "" carries nothing.
	Text string
}

// Carry checks text (quotes optional) as the ETag of an object imported
// at tick at. It must be an entity tag's opaque part (RFC 9110 §8.8.3:
// visible ASCII but '"'), and must not be one this package could issue
// to the object later, a tick after at, so that the ETag of the first
// write after the import never equals it. "" carries nothing.
func Carry(text string, at Tick) (Carried, error) {
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		text = text[1 : len(text)-1]
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x21 || c == '"' || c > 0x7e {
			return Carried{}, fmt.Errorf("ETag %q is not an entity tag", text)
		}
	}
	if t, ok := Parse(text); ok && t > at && t.Bare() == text {
		return Carried{}, fmt.Errorf("ETag %q is the one a write after its Last-Modified (%s) could be given here",
			text, at.Time().Format("2006-01-02T15:04:05.0000000Z"))
	}
	return Carried{At: at, Text: text}, nil
}

// Current reports whether c is still the ETag of an object at tick t.
func (c Carried) Current(t Tick) bool { return c.Text != "" && c.At == t }

// Quoted is the ETag of an object at tick t that carries c, quoted as
// the ETag header gives it.
func (c Carried) Quoted(t Tick) string {
	if c.Current(t) {
		return `"` + c.Text + `"`
	}
	return t.String()
}

// Bare is the same ETag without quotes, as List Blobs lists it.
func (c Carried) Bare(t Tick) string {
	if c.Current(t) {
		return c.Text
	}
	return t.Bare()
}
