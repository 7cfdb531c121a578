package batch

import (
	"bytes"
	"net/http"
	"sort"
	"strconv"
)

// Response is the outcome of one batch operation.
type Response struct {
	Status    int
	Header    http.Header
	Body      []byte
	ContentID string
}

// Render writes the batch response body for resps. In a changeset the parts
// are wrapped in a changesetresponse; a lone query's part is not. The
// returned Content-Type names the batch response boundary.
func Render(id string, changeset bool, resps []Response) (contentType string, body []byte) {
	batchBoundary := "batchresponse_" + id
	changesetBoundary := "changesetresponse_" + id
	var b bytes.Buffer
	b.WriteString("--" + batchBoundary + "\r\n")
	if !changeset {
		for _, r := range resps {
			writePart(&b, r)
		}
		b.WriteString("--" + batchBoundary + "--\r\n")
		return "multipart/mixed; boundary=" + batchBoundary, b.Bytes()
	}
	b.WriteString("Content-Type: multipart/mixed; boundary=" + changesetBoundary + "\r\n\r\n")
	for _, r := range resps {
		b.WriteString("--" + changesetBoundary + "\r\n")
		writePart(&b, r)
	}
	b.WriteString("--" + changesetBoundary + "--\r\n")
	b.WriteString("--" + batchBoundary + "--\r\n")
	return "multipart/mixed; boundary=" + batchBoundary, b.Bytes()
}

// writePart writes one application/http part holding an HTTP response.
func writePart(b *bytes.Buffer, r Response) {
	b.WriteString("Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n")
	if r.ContentID != "" {
		b.WriteString("Content-ID: " + r.ContentID + "\r\n")
	}
	b.WriteString("\r\nHTTP/1.1 " + strconv.Itoa(r.Status) + " " + http.StatusText(r.Status) + "\r\n")
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range r.Header[k] {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	if len(r.Body) > 0 {
		b.WriteString("Content-Length: " + strconv.Itoa(len(r.Body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(r.Body)
	// The line break ends the body (or the empty body); the one before the
	// next boundary belongs to the boundary.
	b.WriteString("\r\n")
}
