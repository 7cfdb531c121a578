package blobdata

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Customer-provided keys (x-ms-encryption-key, -key-sha256, -algorithm;
// the REST page "Encryption with a customer-provided key"): a request may
// give an AES-256 key with which the service encrypts what it writes; the
// blob keeps the key's SHA-256 (EncryptionState.KeySHA256), and from then
// on every read and every write to its content must give the same key.
// Lazuli keeps the protocol, not the cipher: the content is stored as
// every other blob's, the hash is stored on the record and compared. The
// Blob API (service/blob cpk.go) and the Data Lake API's append and flush
// (service/dfs), which write the same records, share the rule here. It
// reads headers the caller hands it and handles no request.

// KeyHeaders names the three headers of a customer-provided key.
type KeyHeaders struct{ Key, SHA256, Algorithm string }

var (
	// RequestKey is the key for the blob a request addresses.
	RequestKey = KeyHeaders{"x-ms-encryption-key", "x-ms-encryption-key-sha256", "x-ms-encryption-algorithm"}
	// SourceKey is the key of the source blob of a From URL write.
	SourceKey = KeyHeaders{"x-ms-source-encryption-key", "x-ms-source-encryption-key-sha256", "x-ms-source-encryption-algorithm"}
)

// Parse validates the key headers of h and returns the key's hash, ""
// when they give no key. The algorithm alone means nothing (some SDK
// versions send it on every request). The key must be 32 bytes of base64
// and the hash its SHA-256 (400 InvalidHeaderValue naming the first
// header at fault), each needs the other (400 MissingRequiredHeader), a
// write needs the algorithm AES256, and a key is only taken over HTTPS
// (overHTTPS: the request came over TLS).
func (n KeyHeaders) Parse(h http.Header, overHTTPS, write bool) (string, error) {
	raw, hash := h.Get(n.Key), h.Get(n.SHA256)
	if raw == "" && hash == "" {
		return "", nil
	}
	if !overHTTPS {
		return "", azerr.Newf(azerr.UnsupportedHeader,
			"A customer-provided encryption key is accepted over HTTPS only.").With("HeaderName", n.Key)
	}
	switch {
	case raw == "":
		return "", azerr.MissingHeader(n.Key)
	case hash == "":
		return "", azerr.MissingHeader(n.SHA256)
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) != sha256.Size {
		return "", azerr.InvalidHeader(n.Key, raw)
	}
	want := sha256.Sum256(key)
	got, err := base64.StdEncoding.DecodeString(hash)
	if err != nil || subtle.ConstantTimeCompare(got, want[:]) != 1 {
		return "", azerr.InvalidHeader(n.SHA256, hash)
	}
	switch alg := h.Get(n.Algorithm); {
	case alg == "" && write:
		return "", azerr.MissingHeader(n.Algorithm)
	case alg != "" && alg != "AES256":
		return "", azerr.InvalidHeader(n.Algorithm, alg)
	}
	return base64.StdEncoding.EncodeToString(want[:]), nil
}

// MatchKey compares the hash of the key a blob was written with (stored)
// and the one a request gives: without a key 409
// BlobUsesCustomerSpecifiedEncryption, a key for a blob that has none 409
// BlobDoesNotUseCustomerSpecifiedEncryption, another key 409
// BlobCustomerSpecifiedEncryptionMismatch.
func MatchKey(stored, given string) error {
	switch {
	case stored == given:
		return nil
	case given == "":
		return azerr.New(azerr.BlobUsesCustomerSpecifiedEncryption)
	case stored == "":
		return azerr.New(azerr.BlobDoesNotUseCustomerSpecifiedEncryption)
	default:
		// Another key than the blob's: the service's "The given customer
		// specified encryption does not match the encryption used to
		// encrypt the blob."
		return azerr.New(azerr.BlobCustomerSpecifiedEncryptionMismatch)
	}
}

// CheckKey refuses to commit block u with the request's key (given) when
// u was staged under a customer-provided key and given is not that key;
// a block staged without one commits under any. This is Put Block List's
// rule (azure-sdk-for-python's recorded
// test_cpk.test_put_block_from_url_and_commit answers 409
// BlobUsesCustomerSpecifiedEncryption without the key), and a flush's.
func (u Block) CheckKey(given string) error {
	if u.KeySHA256 == "" {
		return nil
	}
	return MatchKey(u.KeySHA256, given)
}
