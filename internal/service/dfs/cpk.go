package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Customer-provided keys on Path - Update: append and flush take
// x-ms-encryption-key, -key-sha256 and -algorithm (DataLakeStorage.json,
// Path_AppendData and Path_FlushData) and write to a file's existing
// content, so they follow the Blob API's rule for such writes (Append
// Block's; blobdata customer_key.go): a file written with a key needs
// that key, one written without needs none, and a key is taken over HTTPS
// only. Path - Create stores the key through Put Blob; Path Read is Get
// Blob.

// parseKey reads the customer-provided key of an append or flush, a
// write (the algorithm is required with the key), and returns its hash,
// "" when the request gives none.
func parseKey(r *http.Request) (string, error) {
	return blobdata.RequestKey.Parse(r.Header, r.TLS != nil, true)
}

// answerEncrypted writes what an append or flush answers about its
// encryption: x-ms-request-server-encrypted, and the hash of the
// request's key when it gave one (Path_AppendData and Path_FlushData's
// response headers).
func answerEncrypted(h http.Header, key string) {
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	if key != "" {
		h.Set("X-Ms-Encryption-Key-Sha256", key)
	}
}
