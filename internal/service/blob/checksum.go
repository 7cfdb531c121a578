package blob

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/crc64"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// checksums are the transactional checksums a request declared for its body.
type checksums struct {
	md5   []byte // Content-MD5, nil when absent
	crc64 []byte // x-ms-content-crc64, nil when absent
}

// parseChecksums reads Content-MD5 and x-ms-content-crc64. A value that is
// not Base64 of the right length is 400 InvalidMd5 / InvalidHeaderValue; a
// request may declare one of the two, not both (400
// BothCrc64AndMd5HeaderPresent, as the write operations' pages say).
func parseChecksums(h http.Header) (checksums, error) {
	var c checksums
	var err error
	if h.Get("Content-MD5") != "" && h.Get("X-Ms-Content-Crc64") != "" {
		return c, azerr.New(azerr.BothCrc64AndMd5HeaderPresent)
	}
	if c.md5, err = parseMD5(h, "Content-MD5"); err != nil {
		return c, err
	}
	if raw := h.Get("X-Ms-Content-Crc64"); raw != "" {
		c.crc64, err = base64.StdEncoding.DecodeString(raw)
		if err != nil || len(c.crc64) != 8 {
			return c, azerr.InvalidHeader("x-ms-content-crc64", raw)
		}
	}
	return c, nil
}

// parseMD5 reads a Base64 MD5 header; absent is nil.
func parseMD5(h http.Header, name string) ([]byte, error) {
	raw := h.Get(name)
	if raw == "" {
		return nil, nil
	}
	sum, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(sum) != md5.Size {
		return nil, azerr.New(azerr.InvalidMd5).With("HeaderName", name).With("HeaderValue", raw)
	}
	return sum, nil
}

// digests names the checksums of a received body that the service computes
// and answers with.
type digests struct{ md5, crc64 bool }

// bothDigests answers with the MD5 and, when one was computed, the CRC-64:
// the operations that copy from a URL compute the MD5 while writing.
var bothDigests = digests{md5: true, crc64: true}

// copied is what the operations that copy from a URL compute while writing:
// the MD5 always (the extent engine computes it), the CRC-64 only when the
// request declared one to verify.
func (c checksums) copied() digests { return digests{md5: true, crc64: c.crc64 != nil} }

// crc64Version is the first version whose Put Block, Put Page and Append
// Block answer with x-ms-content-crc64 rather than Content-MD5.
const crc64Version = "2019-02-02"

// combinedVersion is the first version whose Put Block, Put Page and
// Append Block answer with both checksums when the request declared a
// Content-MD5 (the service's "MD5/CRC64 combined return").
const combinedVersion = "2026-10-06"

// digests decides what a write computes, as the real service does. Put Blob
// (whole) keeps the MD5 as the blob's Content-MD5 property, so it always
// computes it, and adds the CRC-64 from 2019-02-02. Put Block, Put Page and
// Append Block answer with Content-MD5 only when the request carried one and
// with x-ms-content-crc64 otherwise, and with both for a Content-MD5 from
// 2026-10-06; before 2019-02-02 they answered with Content-MD5. A declared
// checksum is always computed, to be verified.
func (c checksums) digests(version string, whole bool) digests {
	modern := version >= crc64Version
	switch {
	case whole:
		return digests{md5: true, crc64: modern || c.crc64 != nil}
	case !modern:
		return digests{md5: true, crc64: c.crc64 != nil}
	case version >= combinedVersion:
		return digests{md5: c.md5 != nil, crc64: true}
	default:
		return digests{md5: c.md5 != nil, crc64: c.md5 == nil || c.crc64 != nil}
	}
}

// crcReader computes the CRC-64 of what passes through it, when asked to.
type crcReader struct {
	r   io.Reader
	on  bool
	sum uint64
}

// wrap returns r, teeing it into a CRC-64 when d asks for one.
func (d digests) wrap(r io.Reader) *crcReader {
	return &crcReader{r: r, on: d.crc64}
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.on && n > 0 {
		c.sum = crc64.Update(c.sum, p[:n])
	}
	return n, err
}

// crc returns the little-endian CRC-64 bytes, nil when not computed.
func (c *crcReader) crc() []byte {
	if !c.on {
		return nil
	}
	return binary.LittleEndian.AppendUint64(nil, c.sum)
}

// verify compares the body's MD5 (computed by the extent engine) and CRC-64
// with the declared ones: 400 Md5Mismatch / Crc64Mismatch.
func (c checksums) verify(md5sum [16]byte, crc []byte) error {
	if c.md5 != nil && string(c.md5) != string(md5sum[:]) {
		return azerr.New(azerr.Md5Mismatch).
			With("UserSpecifiedMd5", base64.StdEncoding.EncodeToString(c.md5)).
			With("ServerCalculatedMd5", base64.StdEncoding.EncodeToString(md5sum[:]))
	}
	if c.crc64 != nil && string(c.crc64) != string(crc) {
		return azerr.New(azerr.Crc64Mismatch)
	}
	return nil
}

// setHeaders returns the checksums of the received body that d computed.
func (d digests) setHeaders(h http.Header, md5sum [16]byte, crc []byte) {
	if d.md5 {
		h.Set("Content-MD5", base64.StdEncoding.EncodeToString(md5sum[:]))
	}
	if d.crc64 && crc != nil {
		h.Set("X-Ms-Content-Crc64", base64.StdEncoding.EncodeToString(crc))
	}
}
