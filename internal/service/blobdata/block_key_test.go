package blobdata

import (
	"encoding/hex"
	"testing"
)

// TestBlockKeyEncoding pins the stored form of a block staged under a
// customer-provided key: the key's hash follows the fields every block
// record has, so a block staged without a key is stored as before (the
// golden storedBlock of records_golden_test.go) and such a record reads
// back without a key.
func TestBlockKeyEncoding(t *testing.T) {
	keyed := Block{ID: "block-0001", Extent: "ext-9", Size: 1 << 22, Staged: -3, KeySHA256: "3QFFFpRA5+XANHqwwbT4yXDmrT/2JaLt/FKHjzhOdoE="}
	const golden = "01056578742d3980808002052c3351464646705241352b58414e487177776254347958446d72542f324a614c742f464b486a7a684f646f453d"
	if got := hex.EncodeToString(keyed.Encode()); got != golden {
		t.Fatalf("encoded %s, want %s", got, golden)
	}
	key := BlockKey("acct", "c", "b", keyed.ID)
	stored, _ := hex.DecodeString(golden)
	if got, err := DecodeBlock(key, stored); err != nil || got != keyed {
		t.Fatalf("decoded %+v %v", got, err)
	}
	unkeyed := keyed
	unkeyed.KeySHA256 = ""
	old, _ := hex.DecodeString("01056578742d398080800205")
	if got, err := DecodeBlock(key, old); err != nil || got != unkeyed {
		t.Fatalf("a block stored without a key: %+v %v", got, err)
	}
}
