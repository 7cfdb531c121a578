package queue

import (
	"crypto/rand"
	"encoding/hex"
)

// newID draws a random (version 4) GUID for a new message.
func newID() [idLen]byte {
	var id [idLen]byte
	_, _ = rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

// formatID renders a GUID in its canonical lower-case hyphenated form.
func formatID(id *[idLen]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], id[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], id[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], id[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], id[8:10])
	b[23] = '-'
	hex.Encode(b[24:], id[10:])
	return string(b[:])
}

// parseID reads a GUID in hyphenated form (either case). It reports false
// for anything else: no message of this service can have such an id.
func parseID(s string) ([idLen]byte, bool) {
	var id [idLen]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, false
	}
	groups := [...]struct{ from, to, at int }{{0, 8, 0}, {9, 13, 4}, {14, 18, 6}, {19, 23, 8}, {24, 36, 10}}
	for _, g := range groups {
		if _, err := hex.Decode(id[g.at:], []byte(s[g.from:g.to])); err != nil {
			return id, false
		}
	}
	return id, true
}
