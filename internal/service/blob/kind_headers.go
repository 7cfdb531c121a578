package blob

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// committedCountHeader is an append blob's block count.
const committedCountHeader = "x-ms-blob-committed-block-count"

// setKindHeaders writes the properties of the blob kinds and of index
// tags that Get Blob and Get Blob Properties return: a page blob's
// sequence number, an append blob's block count and sealed flag, and the
// tag count.
func setKindHeaders(h http.Header, b *blobdata.Blob) {
	switch b.Type {
	case blobdata.PageBlob:
		h.Set("X-Ms-Blob-Sequence-Number", itoa(b.SequenceNumber))
	case blobdata.AppendBlob:
		h.Set(committedCountHeader, itoa(b.CommittedBlocks()))
		if b.Sealed {
			h.Set("X-Ms-Blob-Sealed", "true")
		}
	}
	if len(b.Tags) > 0 {
		h.Set("X-Ms-Tag-Count", strconv.Itoa(len(b.Tags)))
	}
}

// writeSequenceElement writes a page blob's x-ms-blob-sequence-number
// property of a List Blobs entry.
func writeSequenceElement(x *xmlWriter, b *blobdata.Blob) {
	if b.Type == blobdata.PageBlob {
		x.Int("x-ms-blob-sequence-number", b.SequenceNumber)
	}
}

// writeKindElements writes the TagCount and Sealed properties of a List
// Blobs entry.
func writeKindElements(x *xmlWriter, b *blobdata.Blob) {
	if len(b.Tags) > 0 {
		x.Int("TagCount", int64(len(b.Tags)))
	}
	if b.Type == blobdata.AppendBlob {
		x.Elem("Sealed", strconv.FormatBool(b.Sealed))
	}
}

// writeTagsElement writes the Tags of a List Blobs entry (include=tags).
func writeTagsElement(x *xmlWriter, b *blobdata.Blob, p listParams) {
	if p.include["tags"] && len(b.Tags) > 0 {
		writeTagSet(x, b.Tags, nil)
	}
}
