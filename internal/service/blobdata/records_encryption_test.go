package blobdata

import (
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

// The encryption field is appended after every field an older record
// has, so a record written before it decodes with no encryption (the
// golden test) and one written with it keeps this encoding.
func TestEncryptionFieldEncoding(t *testing.T) {
	b := goldenBlob()
	b.Encryption = EncryptionState{KeySHA256: "k256", Scope: "scope1"}
	const field = "1e0c046b3235360673636f706531" // tag 30, length 12, "k256", "scope1"
	got := hex.EncodeToString(b.Encode())
	if !strings.HasPrefix(got, storedBlob) || strings.TrimPrefix(got, storedBlob) != field {
		t.Fatalf("encodes to\n%s\nwant the stored record followed by %s", got, field)
	}
	back, err := DecodeBlob(fromHex(storedBlob + field))
	if err != nil || !reflect.DeepEqual(back, b) {
		t.Fatalf("decoded to %+v (%v)", back.Encryption, err)
	}
}

// A container's default scope is appended the same way.
func TestContainerScopeFieldEncoding(t *testing.T) {
	c := goldenContainer()
	c.DefaultScope, c.DenyScopeOverride = "scope1", true
	const field = "1e080673636f70653101" // tag 30, length 8, "scope1", true
	got := hex.EncodeToString(c.encode())
	if !strings.HasPrefix(got, storedContainer) || strings.TrimPrefix(got, storedContainer) != field {
		t.Fatalf("encodes to\n%s\nwant the stored record followed by %s", got, field)
	}
	back, err := DecodeContainer(fromHex(storedContainer + field))
	if err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("decoded to %+v (%v)", back, err)
	}
}
