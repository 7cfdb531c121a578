package blob

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Customer-provided keys (x-ms-encryption-key, -key-sha256, -algorithm):
// a request may give an AES-256 key with which the service encrypts what
// it writes; the blob keeps the key's SHA-256, and from then on every read
// and every write to its content must give the same key. Lazuli keeps the
// protocol, not the cipher: the content is stored as every other blob's,
// the hash is stored on the record and compared.
//
// What each operation does with a key, from the blob REST spec (which
// operations list the headers) and the service's recorded answers:
//   - writes that make new content (Put Blob, page and append blob
//     creation, Put Blob From URL, Put Block List) store the request's key
//     hash, whatever the blob had before; Put Block and Put Block From URL
//     take a key for the staged block, which Put Block List must give to
//     commit it (block_list.go); Resize takes one and checks nothing;
//   - writes to existing content (Set Blob Metadata, Snapshot Blob, Append
//     Block, Put Page and their From URL forms) and reads (Get Blob, Get
//     Blob Properties, Get Blob Metadata, Query Blob Contents) need the
//     blob's key: 409 BlobUsesCustomerSpecifiedEncryption without one, 409
//     BlobCustomerSpecifiedEncryptionMismatch with another, 409
//     BlobDoesNotUseCustomerSpecifiedEncryption with one on a blob that has
//     none;
//   - Set Blob Tier takes no key and is refused on a blob that has one;
//     Set Blob Properties, Get Block List, Get Page Ranges, tags, leases
//     and Delete Blob never look at it.

// keyHeaders names the three headers of a customer-provided key.
type keyHeaders struct{ key, sha256, algorithm string }

var (
	// requestKey is the key for the blob a request addresses.
	requestKey = keyHeaders{"x-ms-encryption-key", "x-ms-encryption-key-sha256", "x-ms-encryption-algorithm"}
	// sourceKey is the key of the source blob of a From URL write.
	sourceKey = keyHeaders{"x-ms-source-encryption-key", "x-ms-source-encryption-key-sha256", "x-ms-source-encryption-algorithm"}
)

// keyRule is what an operation does with a customer-provided key and an
// encryption scope (scope.go).
type keyRule struct {
	// takes: the operation reads the key headers; write: it writes data,
	// so the algorithm header is required (it is optional on reads).
	takes, write bool
	// checks: the key must be the one the addressed blob was written with.
	checks bool
	// scoped: the operation takes x-ms-encryption-scope (every write that
	// takes a key, and Copy Blob From URL).
	scoped bool
}

// keyRules names the operations (route table names) that take or check a
// customer-provided key; the others ignore the headers.
var keyRules = map[string]keyRule{
	"PutBlob":            {takes: true, write: true, scoped: true},
	"PutPageBlob":        {takes: true, write: true, scoped: true},
	"PutAppendBlob":      {takes: true, write: true, scoped: true},
	"PutBlobFromURL":     {takes: true, write: true, scoped: true},
	"PutBlockList":       {takes: true, write: true, scoped: true},
	"PutBlock":           {takes: true, write: true, scoped: true},
	"PutBlockFromURL":    {takes: true, write: true, scoped: true},
	"ResizePageBlob":     {takes: true, write: true, scoped: true},
	"SetBlobMetadata":    {takes: true, write: true, checks: true, scoped: true},
	"SnapshotBlob":       {takes: true, write: true, checks: true, scoped: true},
	"AppendBlock":        {takes: true, write: true, checks: true, scoped: true},
	"AppendBlockFromURL": {takes: true, write: true, checks: true, scoped: true},
	"PutPage":            {takes: true, write: true, checks: true, scoped: true},
	"PutPageFromURL":     {takes: true, write: true, checks: true, scoped: true},
	"GetBlob":            {takes: true, checks: true},
	"GetBlobProperties":  {takes: true, checks: true},
	"GetBlobMetadata":    {takes: true, checks: true},
	"QueryBlobContents":  {takes: true, checks: true},
	"SetBlobTier":        {checks: true},
	"CopyBlobFromURL":    {scoped: true},
	// Copy Blob takes no scope header, but its destination is written
	// under its container's default scope like any other write.
	"CopyBlob": {scoped: true},
}

// requestEncryption is the customer-provided key and encryption scope of
// one request.
type requestEncryption struct {
	rule keyRule
	// SHA256 is the key's hash, base64 as the headers carry it; "" when
	// the request gave no key.
	SHA256 string
	// scopeHeader is x-ms-encryption-scope as sent; Scope the scope the
	// write uses, once resolve has seen the container (its default scope
	// when the request names none).
	scopeHeader, Scope string
}

type ctxEncryption struct{}

// withEncryption parses the key and scope headers of a request for
// operation op and keeps the result for the handler (keyOf).
func (s *Service) withEncryption(r *http.Request, op string) (*http.Request, error) {
	rule, ok := keyRules[op]
	if !ok {
		return r, nil
	}
	k := &requestEncryption{rule: rule}
	var err error
	if rule.takes {
		if k.SHA256, err = requestKey.parse(r, rule.write); err != nil {
			return r, err
		}
	}
	if rule.scoped {
		named, err := requestedScope(r)
		if err != nil {
			return r, err
		}
		if k.scopeHeader, err = s.parseScope(named); err != nil {
			return r, err
		}
		k.Scope = k.scopeHeader
	}
	return r.WithContext(context.WithValue(r.Context(), ctxEncryption{}, k)), nil
}

// requestedScope is the encryption scope a write names: x-ms-encryption-scope,
// or the signed encryption scope (ses) of the SAS that authorized it, which
// "indicates the encryption scope to use to encrypt the request contents"
// (Create an account SAS, Create a service SAS; the SDK's
// TestAccountEncryptionScopeSAS and TestBlobEncryptionScopeSAS read it back).
// A header naming another scope than the SAS is 400 InvalidHeaderValue.
func requestedScope(r *http.Request) (string, error) {
	header := r.Header.Get(hdrEncryptionScope)
	id := request.Of(r).Identity
	if id == nil || id.SAS == nil || id.SAS.EncryptionScope == "" {
		return header, nil
	}
	if header != "" && header != id.SAS.EncryptionScope {
		return "", azerr.InvalidHeader(hdrEncryptionScope, header)
	}
	return id.SAS.EncryptionScope, nil
}

// keyOf is the request's key and scope (none for an operation that takes
// neither).
func keyOf(r *http.Request) *requestEncryption {
	if k, ok := r.Context().Value(ctxEncryption{}).(*requestEncryption); ok {
		return k
	}
	return &requestEncryption{}
}

// parse validates the key headers and returns the key's hash,
// "" when the request gives no key. The algorithm alone means nothing (some
// SDK versions send it on every request). The key must be 32 bytes of
// base64 and the hash its SHA-256 (400 InvalidHeaderValue naming the
// first header at fault), each needs the other (400
// MissingRequiredHeader), a write needs the algorithm AES256, and a key is
// only taken over HTTPS.
func (n keyHeaders) parse(r *http.Request, write bool) (string, error) {
	raw, hash := r.Header.Get(n.key), r.Header.Get(n.sha256)
	if raw == "" && hash == "" {
		return "", nil
	}
	if r.TLS == nil {
		return "", azerr.Newf(azerr.UnsupportedHeader,
			"A customer-provided encryption key is accepted over HTTPS only.").With("HeaderName", n.key)
	}
	switch {
	case raw == "":
		return "", azerr.MissingHeader(n.key)
	case hash == "":
		return "", azerr.MissingHeader(n.sha256)
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) != sha256.Size {
		return "", azerr.InvalidHeader(n.key, raw)
	}
	want := sha256.Sum256(key)
	got, err := base64.StdEncoding.DecodeString(hash)
	if err != nil || subtle.ConstantTimeCompare(got, want[:]) != 1 {
		return "", azerr.InvalidHeader(n.sha256, hash)
	}
	switch alg := r.Header.Get(n.algorithm); {
	case alg == "" && write:
		return "", azerr.MissingHeader(n.algorithm)
	case alg != "" && alg != "AES256":
		return "", azerr.InvalidHeader(n.algorithm, alg)
	}
	return base64.StdEncoding.EncodeToString(want[:]), nil
}

// check refuses the request when its operation needs the blob's key and
// the request does not give exactly that key, or, for a write, when the
// blob has an encryption scope and the request's is another: the service
// answers that as a missing key.
func (k *requestEncryption) check(b *blobdata.Blob) error {
	if !k.rule.checks {
		return nil
	}
	if err := matchKey(b.Encryption.KeySHA256, k.SHA256); err != nil {
		return err
	}
	if k.rule.scoped && b.Encryption.Scope != "" && b.Encryption.Scope != k.Scope {
		return scopeMismatch(k.Scope)
	}
	return nil
}

// scopeMismatch is the answer to a write naming scope to a blob written
// under another: none is a missing key, another one 409
// BlobCustomerSpecifiedEncryptionMismatch (azure-sdk-for-js's recorded
// "setMetadata, getProperties and createSnapshot with CPK-N",
// recordings/node/encryption_scope).
func scopeMismatch(scope string) error {
	if scope == "" {
		return azerr.New(azerr.BlobUsesCustomerSpecifiedEncryption)
	}
	return azerr.New(azerr.BlobCustomerSpecifiedEncryptionMismatch)
}

// checkSourceKey refuses the source of a copy when the request does not
// give the key it was written with (x-ms-source-encryption-key): the
// source answers as a read of it would, reported as the source's failure.
func checkSourceKey(b *blobdata.Blob, given string) error {
	if err := matchKey(b.Encryption.KeySHA256, given); err != nil {
		e, _ := azerr.As(err)
		return copySourceError(e.Status, e.Code, e.Message)
	}
	return nil
}

// matchKey compares the hash of the key a blob was written with and the
// one a request gives.
func matchKey(stored, given string) error {
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

// setRequestEncrypted writes what a write that stored data answers about
// its encryption: x-ms-request-server-encrypted, the hash of the request's
// key when it gave one, and the scope it wrote under.
func setRequestEncrypted(h http.Header, r *http.Request) {
	k := keyOf(r)
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	setIf(h, "X-Ms-Encryption-Key-Sha256", k.SHA256)
	setIf(h, "X-Ms-Encryption-Scope", k.Scope)
}

// setStoredEncryption writes the encryption headers of a read: the hash
// of the key the blob was written with, and its scope, when it has them.
func setStoredEncryption(h http.Header, b *blobdata.Blob) {
	setIf(h, "X-Ms-Encryption-Key-Sha256", b.Encryption.KeySHA256)
	setIf(h, "X-Ms-Encryption-Scope", b.Encryption.Scope)
}
