package queue

import "encoding/hex"

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
