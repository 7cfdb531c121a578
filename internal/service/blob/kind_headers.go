package blob

import (
	"net/http"
	"strconv"
)

// committedCountHeader is an append blob's block count.
const committedCountHeader = "x-ms-blob-committed-block-count"

// setKindHeaders writes the properties of the blob kinds and of index
// tags that Get Blob and Get Blob Properties return: a page blob's
// sequence number, an append blob's block count and sealed flag, and the
// tag count.
func setKindHeaders(h http.Header, b *blobRecord) {
	switch b.Type {
	case pageBlob:
		h.Set("X-Ms-Blob-Sequence-Number", itoa(b.SequenceNumber))
	case appendBlob:
		h.Set(committedCountHeader, itoa(b.committedBlocks()))
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
func writeSequenceElement(x *xmlWriter, b *blobRecord) {
	if b.Type == pageBlob {
		x.Int("x-ms-blob-sequence-number", b.SequenceNumber)
	}
}

// writeKindElements writes the TagCount and Sealed properties of a List
// Blobs entry.
func writeKindElements(x *xmlWriter, b *blobRecord) {
	if len(b.Tags) > 0 {
		x.Int("TagCount", int64(len(b.Tags)))
	}
	if b.Type == appendBlob {
		x.Elem("Sealed", strconv.FormatBool(b.Sealed))
	}
}

// writeTagsElement writes the Tags of a List Blobs entry (include=tags).
func writeTagsElement(x *xmlWriter, b *blobRecord, p listParams) {
	if p.include["tags"] && len(b.Tags) > 0 {
		writeTagSet(x, b.Tags, nil)
	}
}
