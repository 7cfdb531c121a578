// Package guid draws every random identifier Lazuli hands out as a GUID:
// request ids (x-ms-request-id, also of batch sub-requests), lease ids,
// copy ids, queue message ids and multipart response boundaries. They are
// version 4 (random) UUIDs from github.com/google/uuid, rendered in the
// canonical lower-case hyphenated form the service uses.
package guid

import "github.com/google/uuid"

// Size is the length of a GUID in bytes.
const Size = 16

// New returns a random GUID in canonical form, such as
// "0f8fad5b-d9cb-469f-a165-70867728950e".
func New() string { return uuid.NewString() }

// NewRaw returns a random GUID as its 16 bytes, for records that store it
// compactly.
func NewRaw() [Size]byte { return uuid.New() }

// Format renders 16 bytes in the canonical form.
func Format(raw [Size]byte) string { return uuid.UUID(raw).String() }

// Valid reports whether s is a GUID, in any form a client may send.
func Valid(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil
}
