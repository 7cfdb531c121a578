package blob

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// The response header writers and value formats that many operations share.

// write finishes a response with a status and no body.
func write(w http.ResponseWriter, status int) error {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
	return nil
}

// setIf writes a header only when it has a value.
func setIf(h http.Header, name, value string) {
	if value != "" {
		h.Set(name, value)
	}
}

// httpTime renders an instant as an HTTP date.
func httpTime(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// itoa renders a length, offset or count in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// md5Base64 renders an MD5 sum as Content-MD5 and x-ms-blob-content-md5 carry it.
func md5Base64(sum []byte) string { return base64.StdEncoding.EncodeToString(sum) }

// setBlobETag writes ETag and Last-Modified.
func setBlobETag(h http.Header, b *blobdata.Blob) {
	h.Set("ETag", b.ETagString())
	h.Set("Last-Modified", httpTime(b.LastModified()))
}

// setBlobHeaders writes the properties Get Blob and Get Blob Properties
// return. Content-Length and Content-MD5 are the caller's: they depend on
// the range.
func setBlobHeaders(h http.Header, b *blobdata.Blob, now time.Time) {
	setBlobETag(h, b)
	b.Props.WriteSetHeaders(h)
	h.Set("X-Ms-Blob-Type", b.Type.String())
	h.Set("X-Ms-Creation-Time", httpTime(b.Created))
	h.Set("Accept-Ranges", "bytes")
	h.Set("X-Ms-Server-Encrypted", "true")
	setStoredEncryption(h, b)
	setLeaseHeaders(h, b.Lease, now)
	setKindHeaders(h, b)
	setExpiryHeader(h, b)
	setImmutabilityHeaders(h, b)
	b.Metadata.WriteHeaders(h)
}
