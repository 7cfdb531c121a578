package queue

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// storedMessages are message record values as msgFormat writes them today,
// with the message each holds: stored messages must keep decoding to the
// same message, and a message must keep encoding to the same bytes, since
// a queue's messages are never rewritten just to change their format.
var storedMessages = []struct {
	hex  string
	want message
}{
	{"01187c1cc82e9ccd15ffffffffffffffff0123456789abcdef0000000368656c6c6f0077c3b6726c64",
		message{Inserted: 1764316800123456789, Expires: neverExpires, Nonce: 0x0123456789abcdef, Dequeues: 3,
			Text: []byte("hello\x00wörld")}},
	{"01187c1cc82e9ccd15187e42d827c5cd15000000000000000100000000",
		message{Inserted: 1764316800123456789, Expires: 1764921600123456789, Nonce: 1, Text: []byte{}}},
}

func TestMessageRecordKeepsItsEncoding(t *testing.T) {
	for _, s := range storedMessages {
		stored, err := hex.DecodeString(s.hex)
		if err != nil {
			t.Fatal(err)
		}
		var got message
		if err := decodeValue(stored, &got); err != nil || !sameValue(&got, &s.want) {
			t.Errorf("%s decoded to %+v (%v)\nwant %+v", s.hex, got, err, s.want)
		}
		if valueExpired(stored, s.want.Expires-1) || !valueExpired(stored, s.want.Expires) {
			t.Errorf("%s: expiry not read at its stored offset", s.hex)
		}
		if again := hex.EncodeToString(encodeValue(&s.want)); again != s.hex {
			t.Errorf("encodes to\n%s\nwant\n%s", again, s.hex)
		}
	}
}

// sameValue compares the fields a record value holds (not the key's).
func sameValue(a, b *message) bool {
	return a.Inserted == b.Inserted && a.Expires == b.Expires && a.Nonce == b.Nonce &&
		a.Dequeues == b.Dequeues && bytes.Equal(a.Text, b.Text)
}
