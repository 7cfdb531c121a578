package file

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/structured"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// maxRangeMD5 is the largest range whose MD5 Get File computes on request.
const maxRangeMD5 = 4 << 20

// getFile serves Get File (GET) and Get File Properties (HEAD).
// sasOverrides replaces the response headers a service SAS overrides
// (rscc, rscd, rsce, rscl, rsct) on Get File and Get File Properties
// ("Create a service SAS", "Specify query parameters to override response
// headers").
func sasOverrides(r *http.Request, h http.Header) {
	if id := request.Of(r).Identity; id != nil && id.SAS != nil {
		for k, v := range id.SAS.ResponseHeaders() {
			h[k] = v
		}
	}
}

func (s *Service) getFile(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	head := r.Method == http.MethodHead
	br, ranged, err := requestRange(r.Header)
	if err != nil && !head {
		return err
	}
	ranged = ranged && !head
	wantMD5, err := boolHeader(r.Header, "x-ms-range-get-content-md5")
	if err != nil {
		return err
	}
	if wantMD5 && !ranged && !head {
		return azerr.Newf(azerr.InvalidHeaderValue, "x-ms-range-get-content-md5 needs x-ms-range.").
			With("HeaderName", "x-ms-range-get-content-md5")
	}
	now := s.now()
	var n *node
	var segs []ranges.Segment
	var start, end int64
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if n, err = fileFor(tx, t, false); err != nil {
			return err
		}
		if err := n.Lease.CheckRead(r.Header.Get(lease.HeaderID), now, lease.File); err != nil {
			return err
		}
		if head {
			return nil
		}
		if t.Snapshot == "" {
			if err := smbstate.Check(smbstate.GetFile, n.Opens); err != nil {
				return err
			}
		}
		start, end = 0, n.Size
		if ranged {
			if start, end, err = br.clip(n.Size); err != nil {
				return err
			}
		}
		if t.Snapshot == "" {
			if err := s.checkByteLocks(n, start, end, false); err != nil {
				return err
			}
		}
		segs, err = segmentsIn(tx, t.Account, t.Share, t.Snapshot, n.ID, start, end)
		return err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	nfs := nfsOnDownload
	if head {
		nfs = nfsOnRead
	}
	writeFileHeaders(h, n, now, nfs)
	sasOverrides(r, h)
	if head {
		h.Set("Content-Length", strconv.FormatInt(n.Size, 10))
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return s.stream(w, r, n, segs, start, end, ranged, wantMD5)
}

// writeFileHeaders writes a file's properties as Get File and Get File
// Properties return them, with the NFS properties nfs.
func writeFileHeaders(h http.Header, n *node, now time.Time, nfs nfsHeaders) {
	setETag(h, n.ETag)
	n.Metadata.WriteHeaders(h)
	h.Set("X-Ms-Type", "File")
	n.Props.WriteSetHeaders(h)
	if len(n.Props.MD5) > 0 {
		h.Set("Content-MD5", base64.StdEncoding.EncodeToString(n.Props.MD5))
	}
	if c := n.Copy; c.ID != "" {
		h.Set("X-Ms-Copy-Id", c.ID)
		h.Set("X-Ms-Copy-Source", c.Source)
		h.Set("X-Ms-Copy-Status", c.Status)
		h.Set("X-Ms-Copy-Progress", fmt.Sprintf("%d/%d", c.Copied, c.Total))
		if !c.Completed.IsZero() {
			h.Set("X-Ms-Copy-Completion-Time", c.Completed.Format(http.TimeFormat))
		}
		if c.Description != "" {
			h.Set("X-Ms-Copy-Status-Description", c.Description)
		}
	}
	h.Set("X-Ms-Server-Encrypted", "true")
	setSMBHeaders(h, n, nfs)
	setLeaseHeaders(h, n.Lease, now, lease.File)
	h.Set("Accept-Ranges", "bytes")
}

// stream writes [start, end) of the file. Extents are opened before the
// status is sent, so a missing one is still a clean error; a failure while
// copying can only abort the connection.
func (s *Service) stream(w http.ResponseWriter, r *http.Request, n *node, segs []ranges.Segment, start, end int64, ranged, wantMD5 bool) error {
	plan := ranges.Plan(segs, start, end)
	readers, err := s.openPlan(r.Context(), plan)
	if err != nil {
		return fmt.Errorf("file %d: %w", n.ID, err)
	}
	defer closeReaders(readers)
	framed, err := structured.Requested(r.Header)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Length", strconv.FormatInt(end-start, 10))
	status := http.StatusOK
	if ranged {
		status = http.StatusPartialContent
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end-1, n.Size))
		// A range answers the whole file's MD5 as x-ms-content-md5, and
		// Content-MD5 only when asked for the range's own (Get File; the
		// SDK's recorded TestUploadDownloadDefaultNonDefaultMD5).
		if md5 := h.Get("Content-MD5"); md5 != "" {
			h.Set("X-Ms-Content-Md5", md5)
		}
		h.Del("Content-MD5")
		if wantMD5 {
			if end-start > maxRangeMD5 {
				return azerr.Newf(azerr.OutOfRangeInput, "x-ms-range-get-content-md5 is allowed for ranges of at most 4 MiB.")
			}
			sum, err := planMD5(plan, readers)
			if err != nil {
				return err
			}
			h.Set("Content-MD5", sum)
		}
	}
	if framed {
		err = structured.WriteDownload(w, status, end-start, func(enc io.Writer) error { return copyPlan(enc, plan, readers) })
	} else {
		w.WriteHeader(status)
		err = copyPlan(w, plan, readers)
	}
	if err != nil {
		s.logger.Log(r.Context(), request.InterruptedLevel(r, err), "file download aborted", "file", n.ID, "error", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// openPlan opens every extent a plan reads.
func (s *Service) openPlan(ctx context.Context, plan []ranges.Piece) (map[string]extent.Reader, error) {
	readers := map[string]extent.Reader{}
	for _, p := range plan {
		if p.Extent == "" || readers[p.Extent] != nil {
			continue
		}
		rd, err := s.extents.Open(ctx, p.Extent)
		if err != nil {
			closeReaders(readers)
			return nil, fmt.Errorf("open extent %s: %w", p.Extent, err)
		}
		readers[p.Extent] = rd
	}
	return readers, nil
}

func closeReaders(readers map[string]extent.Reader) {
	for _, rd := range readers {
		_ = rd.Close()
	}
}

var zeros = make([]byte, 64<<10)

// copyPlan writes the bytes of plan: extent pieces and runs of zeros.
func copyPlan(w io.Writer, plan []ranges.Piece, readers map[string]extent.Reader) error {
	for _, p := range plan {
		if p.Extent != "" {
			if _, err := io.Copy(w, io.NewSectionReader(readers[p.Extent], p.ExtentOffset, p.Length)); err != nil {
				return err
			}
			continue
		}
		for left := p.Length; left > 0; {
			chunk := min(left, int64(len(zeros)))
			if _, err := w.Write(zeros[:chunk]); err != nil {
				return err
			}
			left -= chunk
		}
	}
	return nil
}

func planMD5(plan []ranges.Piece, readers map[string]extent.Reader) (string, error) {
	sum := md5.New()
	if err := copyPlan(sum, plan, readers); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(sum.Sum(nil)), nil
}
