package blobdata

import (
	"testing"
	"time"
)

// TestEncryptionContextField: a path's encryption context reads back, and
// a record without one encodes as before (no field).
func TestEncryptionContextField(t *testing.T) {
	b := NewDirectory(time.Unix(1700000000, 0).UTC(), nil)
	plain := b.Encode()
	b.EncryptionContext = "ctx-1"
	got, err := DecodeBlob(b.Encode())
	if err != nil || got.EncryptionContext != "ctx-1" {
		t.Fatalf("decoded %q, %v", got.EncryptionContext, err)
	}
	b.EncryptionContext = ""
	if string(b.Encode()) != string(plain) {
		t.Fatal("a record without a context changed its encoding")
	}
}
