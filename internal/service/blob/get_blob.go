package blob

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/crc64"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/structured"
	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// maxChecksummedRange is the largest range whose MD5 or CRC-64 Get Blob
// computes on request.
const maxChecksummedRange = 4 << 20

// readArgs is a parsed Get Blob, Get Blob Properties or Get Blob Metadata.
type readArgs struct {
	conds   conditions
	sel     blobdata.Selector
	rng     *byterange.Range
	wantMD5 bool
	wantCRC bool
	// structured asks for the content framed as a structured message.
	structured bool
}

func parseRead(r *http.Request) (readArgs, error) {
	var a readArgs
	var err error
	if a.conds, a.sel, err = parseSelectedRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	if r.Method != http.MethodGet || r.URL.Query().Get("comp") != "" {
		return a, nil
	}
	if a.structured, err = structured.Requested(r.Header); err != nil {
		return a, err
	}
	// x-ms-range wins over Range. A malformed x-ms-range is an error; a
	// malformed Range is ignored, as HTTP asks of a Range it cannot parse.
	if raw := r.Header.Get("X-Ms-Range"); raw != "" {
		if a.rng, err = byterange.ParseRead(raw); err != nil {
			return a, azerr.InvalidHeader("x-ms-range", raw)
		}
	} else if raw := r.Header.Get("Range"); raw != "" {
		if rng, err := byterange.ParseRead(raw); err == nil {
			a.rng = rng
		}
	}
	if a.wantMD5, err = checksumFlag(r, "x-ms-range-get-content-md5", a.rng); err != nil {
		return a, err
	}
	if a.wantCRC, err = checksumFlag(r, "x-ms-range-get-content-crc64", a.rng); err != nil {
		return a, err
	}
	if a.wantMD5 && a.wantCRC {
		return a, bothRangeChecksums()
	}
	return a, nil
}

// bothRangeChecksums is the service's answer to a read asking for both
// range checksums: 400 BothCrc64AndMd5RangeHeaderPresent (its status
// table, CommonStatusEntries.BothCrc64AndMd5RangeHeaderPresent).
func bothRangeChecksums() *azerr.Error {
	return &azerr.Error{Status: http.StatusBadRequest, Code: "BothCrc64AndMd5RangeHeaderPresent",
		Message: "Both x-ms-range-get-content-crc64 header and x-ms-range-get-content-md5 header are present."}
}

// checksumFlag reads x-ms-range-get-content-md5/-crc64: true needs a range
// of at most 4 MiB (400 otherwise).
func checksumFlag(r *http.Request, name string, rng *byterange.Range) (bool, error) {
	raw := r.Header.Get(name)
	if raw == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(raw)
	if err != nil {
		return false, azerr.InvalidHeader(name, raw)
	}
	if on && (rng == nil || rng.End < 0 || rng.End-rng.Start+1 > maxChecksummedRange) {
		return false, azerr.InvalidHeader(name, raw)
	}
	return on, nil
}

// viewBlob loads the target blob (the state sel addresses) for a read:
// container and blob must exist, the conditions hold by the read rule, and
// a lease ID, if sent, must name the active lease.
func (s *Service) viewBlob(r *http.Request, conds conditions, sel blobdata.Selector) (*blobdata.Blob, error) {
	t := targetOf(r)
	info := request.Of(r)
	var rec *blobdata.Blob
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		_, found, err := blobdata.LoadContainer(tx, info.Account, t.Container)
		if err != nil {
			return err
		}
		if !found {
			return containerNotFound()
		}
		b, err := blobdata.LoadState(tx, info.Account, t.Container, t.Blob, sel, s.now())
		if err != nil {
			return err
		}
		if b == nil {
			return blobNotFound()
		}
		if err := checkReadConditions(conds, b, info.Version); err != nil {
			return err
		}
		if err := keyOf(r).check(b); err != nil {
			return err
		}
		rec = b
		return b.Lease.CheckRead(leaseID(r), s.now(), lease.Blob)
	})
	return rec, err
}

// tierOnReadVersion is the first version whose Get Blob answers the access
// tier headers that Get Blob Properties always has.
const tierOnReadVersion = "2026-10-06"

// getBlob is Get Blob (GET) and Get Blob Properties (HEAD).
func (s *Service) getBlob(w http.ResponseWriter, r *http.Request) error {
	a, err := parseRead(r)
	if err != nil {
		return err
	}
	b, err := s.viewBlob(r, a.conds, a.sel)
	if err != nil {
		return err
	}
	now := s.now()
	if r.Method == http.MethodGet && b.ArchivedAt(now) {
		return azerr.New(azerr.BlobArchived)
	}
	h := w.Header()
	setBlobHeaders(h, b, now)
	setIdentityHeaders(h, b, b.LoadedFrom == blobdata.ElemBase, now)
	sasOverrides(r, h)
	if r.Method == http.MethodHead {
		return s.headBlob(w, b, now)
	}
	offset, length := int64(0), b.Size
	if a.rng != nil {
		if offset, length, err = a.rng.Resolve(b.Size); err != nil {
			e := azerr.New(azerr.InvalidRange)
			e.Header = http.Header{"Content-Range": {"bytes */" + strconv.FormatInt(b.Size, 10)}}
			return e
		}
	}
	segs, err := b.Segments()
	if err != nil {
		return err
	}
	c, err := blobdata.OpenContent(r.Context(), s.extents, segs, offset, length)
	if err != nil {
		return err
	}
	defer c.Close()
	h.Set("Content-Length", strconv.FormatInt(length, 10))
	if request.Of(r).Version >= tierOnReadVersion {
		setTierHeaders(h, b, now)
	}
	status := http.StatusOK
	if a.rng == nil {
		setIf(h, "Content-MD5", md5Base64(b.Props.MD5))
	} else {
		status = http.StatusPartialContent
		h.Set("Content-Range", byterange.ContentRange(offset, length, b.Size))
		setIf(h, "X-Ms-Blob-Content-Md5", md5Base64(b.Props.MD5))
		if (a.wantMD5 || a.wantCRC) && !a.structured {
			return s.writeChecksummed(w, c, a, status)
		}
	}
	if a.structured {
		err = structured.WriteDownload(w, status, length, func(enc io.Writer) error {
			_, err := c.WriteTo(enc)
			return err
		})
	} else {
		w.WriteHeader(status)
		_, err = c.WriteTo(w)
	}
	if err != nil {
		// The status is sent; the client sees a short body.
		s.logger.Log(r.Context(), request.InterruptedLevel(r, err), "blob read interrupted", "request_id", request.Of(r).ID, "err", err)
	}
	return nil
}

// sasOverrides applies the response headers a service SAS overrides
// (rscc, rscd, rsce, rscl, rsct).
func sasOverrides(r *http.Request, h http.Header) {
	if id := request.Of(r).Identity; id != nil && id.SAS != nil {
		for k, v := range id.SAS.ResponseHeaders() {
			h[k] = v
		}
	}
}

// writeChecksummed buffers a small range to send its MD5 or CRC-64 first.
func (s *Service) writeChecksummed(w http.ResponseWriter, c *blobdata.Content, a readArgs, status int) error {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	if a.wantMD5 {
		sum := md5.Sum(buf.Bytes())
		w.Header().Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	}
	if a.wantCRC {
		crc := crc64.Bytes(buf.Bytes())
		w.Header().Set("X-Ms-Content-Crc64", base64.StdEncoding.EncodeToString(crc))
	}
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// headBlob finishes Get Blob Properties.
func (s *Service) headBlob(w http.ResponseWriter, b *blobdata.Blob, now time.Time) error {
	h := w.Header()
	h.Set("Content-Length", strconv.FormatInt(b.Size, 10))
	setIf(h, "Content-MD5", md5Base64(b.Props.MD5))
	setTierHeaders(h, b, now)
	w.WriteHeader(http.StatusOK)
	return nil
}

// getBlobMetadata is Get Blob Metadata.
func (s *Service) getBlobMetadata(w http.ResponseWriter, r *http.Request) error {
	a, err := parseRead(r)
	if err != nil {
		return err
	}
	b, err := s.viewBlob(r, a.conds, a.sel)
	if err != nil {
		return err
	}
	setBlobETag(w.Header(), b)
	setStoredEncryption(w.Header(), b)
	b.Metadata.WriteHeaders(w.Header())
	return write(w, http.StatusOK)
}
