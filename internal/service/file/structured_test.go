package file_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/structured"
)

// TestStructuredMessageRanges writes a range with a structured message body
// and reads it back framed, decoding the frames as a client does. Before,
// the File service ignored x-ms-structured-body and stored the frames as
// content.
func TestStructuredMessageRanges(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	newShare(t, svc, "framed")
	content := bytes.Repeat([]byte("range!"), 1000) // 6,000 bytes
	if resp := rawRequest(t, in, http.MethodPut, "framed/f.bin", "", http.Header{
		"X-Ms-Type": {"file"}, "X-Ms-Content-Length": {"8192"}, "X-Ms-File-Attributes": {"None"},
		"X-Ms-File-Creation-Time": {"now"}, "X-Ms-File-Last-Write-Time": {"now"}, "X-Ms-File-Permission": {"inherit"},
	}, ""); resp.StatusCode != http.StatusCreated {
		t.Fatalf("Create File: %d", resp.StatusCode)
	}
	var framed bytes.Buffer
	enc, _ := structured.NewEncoder(&framed, int64(len(content)), 1024)
	enc.Write(content)
	enc.Close()
	resp := rawRequest(t, in, http.MethodPut, "framed/f.bin", "comp=range", http.Header{
		"X-Ms-Write": {"update"}, "X-Ms-Range": {"bytes=100-6099"},
		structured.BodyHeader: {structured.CRC64Body}, structured.ContentLengthHeader: {strconv.Itoa(len(content))},
	}, framed.String())
	if resp.StatusCode != http.StatusCreated || resp.Header.Get(structured.BodyHeader) != structured.CRC64Body {
		t.Fatalf("Put Range: %d, %s %q", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"), resp.Header.Get(structured.BodyHeader))
	}
	resp = rawRequest(t, in, http.MethodGet, "framed/f.bin", "", http.Header{
		"X-Ms-Range": {"bytes=100-6099"}, structured.BodyHeader: {structured.CRC64Body}}, "")
	if resp.StatusCode != http.StatusPartialContent || resp.Header.Get(structured.ContentLengthHeader) != "6000" {
		t.Fatalf("Get File: %d, structured length %q", resp.StatusCode, resp.Header.Get(structured.ContentLengthHeader))
	}
	got, err := io.ReadAll(structured.NewDecoder(resp.Body, resp.ContentLength, 6000))
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("Get File decoded %d bytes, %v", len(got), err)
	}
}
