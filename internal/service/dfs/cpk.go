package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Customer-provided keys and encryption scopes on Path - Update: append
// and flush take x-ms-encryption-key, -key-sha256 and -algorithm
// (DataLakeStorage.json, Path_AppendData and Path_FlushData) and write to
// a file's existing content, so they follow the Blob API's rules for such
// writes (Append Block's; blobdata customer_key.go and
// encryption_scope.go): a file written with a key needs that key, one
// written without needs none, and a key is taken over HTTPS only; a file
// written under an encryption scope needs the write to use it again. The
// Data Lake API names a scope only through the signed encryption scope of
// a SAS (ses; the SDK's TestAccountEncryptionScopeSAS uploads a file so)
// or, as the Blob API, x-ms-encryption-scope, and a write that names none
// uses its filesystem's default scope, which the filesystem may oblige
// (x-ms-deny-encryption-scope-override). Path - Create stores the key and
// the scope through Put Blob; Path Read is Get Blob.

// encryption is what an append or flush says of the encryption of what
// it writes.
type encryption struct {
	// key is the hash of the request's customer-provided key, "" for none.
	key string
	// named is the scope the request names, "" for none; used the scope
	// the write uses once check has seen the filesystem.
	named, used string
}

// parseEncryption reads the customer-provided key of an append or flush,
// a write (the algorithm is required with the key), and the encryption
// scope it names (409 EncryptionScopeNotAvailable for one the account
// lacks).
func (s *Service) parseEncryption(r *http.Request) (encryption, error) {
	var e encryption
	var err error
	if e.key, err = blobdata.RequestKey.Parse(r.Header, r.TLS != nil, true); err != nil {
		return e, err
	}
	e.named, err = s.blobs.RequestScope(r)
	return e, err
}

// check refuses a write to file b of filesystem t.Filesystem, read in tx,
// whose key is not the one b was written with, or whose scope (the
// filesystem's default when the request names none, and which the
// filesystem may forbid) is not the one b was written under. The
// filesystem exists: the write found b in it.
func (e *encryption) check(tx store.Tx, account string, t target, b *blobdata.Blob) error {
	c, _, err := blobdata.LoadContainer(tx, account, t.Filesystem)
	if err != nil {
		return err
	}
	if e.used, err = c.WriteScope(e.named); err != nil {
		return err
	}
	if err := blobdata.MatchKey(b.Encryption.KeySHA256, e.key); err != nil {
		return err
	}
	return blobdata.MatchScope(b.Encryption.Scope, e.used)
}

// answer writes what an append or flush answers about its encryption:
// x-ms-request-server-encrypted, the hash of the request's key when it
// gave one (Path_AppendData and Path_FlushData's response headers), and
// the scope it wrote under, as the Blob API's writes answer it.
func (e encryption) answer(h http.Header) {
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	if e.key != "" {
		h.Set("X-Ms-Encryption-Key-Sha256", e.key)
	}
	if e.used != "" {
		h.Set("X-Ms-Encryption-Scope", e.used)
	}
}
