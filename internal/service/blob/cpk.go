package blob

import (
	"context"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Customer-provided keys: the headers, the stored hash and the rule that
// compares them are blobdata's (customer_key.go), shared with the Data
// Lake API's writes.
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

var (
	// requestKey is the key for the blob a request addresses.
	requestKey = blobdata.RequestKey
	// sourceKey is the key of the source blob of a From URL write.
	sourceKey = blobdata.SourceKey
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
		if k.SHA256, err = requestKey.Parse(r.Header, r.TLS != nil, rule.write); err != nil {
			return r, err
		}
	}
	if rule.scoped {
		if k.scopeHeader, err = s.RequestScope(r); err != nil {
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

// check refuses the request when its operation needs the blob's key and
// the request does not give exactly that key, or, for a write, when the
// blob has an encryption scope and the request's is another
// (blobdata.MatchScope).
func (k *requestEncryption) check(b *blobdata.Blob) error {
	if !k.rule.checks {
		return nil
	}
	if err := blobdata.MatchKey(b.Encryption.KeySHA256, k.SHA256); err != nil {
		return err
	}
	if k.rule.scoped {
		return blobdata.MatchScope(b.Encryption.Scope, k.Scope)
	}
	return nil
}

// checkSourceKey refuses the source of a copy when the request does not
// give the key it was written with (x-ms-source-encryption-key): the
// source answers as a read of it would, reported as the source's failure.
func checkSourceKey(b *blobdata.Blob, given string) error {
	if err := blobdata.MatchKey(b.Encryption.KeySHA256, given); err != nil {
		e, _ := azerr.As(err)
		return copySourceError(e.Status, e.Code, e.Message)
	}
	return nil
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
