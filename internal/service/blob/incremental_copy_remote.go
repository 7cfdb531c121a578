package blob

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// remoteIncrementalCopy is Incremental Copy Blob from a page blob snapshot
// on another server, read with the source's authorization: its properties
// (Get Blob Properties), its written pages (Get Page Ranges) and those
// pages' bytes, so that the copy is as sparse as the source. Every copy
// reads all the snapshot's written pages, not only those changed since
// the last one; the destination is the same.
func (s *Service) remoteIncrementalCopy(w http.ResponseWriter, r *http.Request, conds conditions, src copySource) error {
	raw := src.url.Query().Get("snapshot")
	if raw == "" {
		return azerr.New(azerr.IncrementalCopySourceMustBeSnapshot)
	}
	snapshot, ok := blobdata.ParseStamp(raw)
	if !ok {
		return azerr.InvalidHeader("x-ms-copy-source", src.raw)
	}
	source, err := s.fetchPageSnapshot(r, src)
	if err != nil {
		return err
	}
	blobURL := *src.url
	blobURL.RawQuery, blobURL.Fragment = "", ""
	from := increment{blob: blobURL.String(), snapshot: snapshot, display: src.display()}
	copyID := guid.New()
	rec, err := s.writeBlobAs(r, conds, blobdata.WriteIncremental, func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		return s.writeIncrement(tx, r, source, from, copyID, old, refs)
	})
	if err != nil {
		return err
	}
	return copyResult{rec: rec, copyID: copyID, status: incrementalCopyAnswer}.send(w, nil)
}

// fetchPageSnapshot reads a remote page blob snapshot into a record whose
// segments hold the fetched pages, holes elsewhere.
func (s *Service) fetchPageSnapshot(r *http.Request, src copySource) (*blobdata.Blob, error) {
	resp, err := s.askSourceAbout(r, src, http.MethodHead, nil)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if !strings.EqualFold(resp.Header.Get("X-Ms-Blob-Type"), "PageBlob") {
		return nil, azerr.New(azerr.InvalidSourceBlobType)
	}
	size := resp.ContentLength
	if size < 0 || size%blobdata.PageSize != 0 || size > blobdata.MaxPageBlobSize {
		return nil, copySourceError(http.StatusBadGateway, "", "The copy source's size is not that of a page blob.")
	}
	rec := &blobdata.Blob{Type: blobdata.PageBlob, Committed: true, Size: size,
		Props: contentprops.FromResponse(resp.Header), Metadata: metadata.FromResponse(resp.Header)}
	ranges, err := s.sourcePageRanges(r, src, size)
	if err != nil {
		return nil, err
	}
	var segs []blobdata.Segment
	var pos int64
	for _, p := range ranges {
		f, err := s.fetchSource(r, src, &byterange.Range{Start: p.Start, End: p.End}, p.Length(), checksums{})
		if err != nil {
			return nil, err
		}
		if f.size != p.Length() {
			return nil, copySourceError(http.StatusBadGateway, "", "The copy source answered a page range short.")
		}
		if p.Start > pos {
			segs = append(segs, blobdata.Hole(p.Start-pos))
		}
		segs = append(segs, blobdata.Segment{Extent: f.extent, Length: f.size})
		pos = p.End + 1
	}
	if size > pos {
		segs = append(segs, blobdata.Hole(size-pos))
	}
	rec.SetSegments(segs)
	return rec, nil
}

// maxSourcePageList bounds one Get Page Ranges answer read from a source.
const maxSourcePageList = 16 << 20

// sourcePageRanges lists a remote page blob's written ranges, following
// its markers; they must be sorted, disjoint, page-aligned and within
// size.
func (s *Service) sourcePageRanges(r *http.Request, src copySource, size int64) ([]blobdata.PageRange, error) {
	var out []blobdata.PageRange
	marker := ""
	for {
		q := url.Values{"comp": {"pagelist"}}
		if marker != "" {
			q.Set("marker", marker)
		}
		resp, err := s.askSourceAbout(r, src, http.MethodGet, q)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxSourcePageList))
		resp.Body.Close()
		var list struct {
			Ranges []struct {
				Start int64 `xml:"Start"`
				End   int64 `xml:"End"`
			} `xml:"PageRange"`
			NextMarker string `xml:"NextMarker"`
		}
		if err != nil || xml.Unmarshal(body, &list) != nil {
			return nil, copySourceError(http.StatusBadGateway, "", "The copy source's page ranges are not a valid Get Page Ranges answer.")
		}
		for _, x := range list.Ranges {
			p := blobdata.PageRange{Start: x.Start, End: x.End}
			valid := p.Start%blobdata.PageSize == 0 && (p.End+1)%blobdata.PageSize == 0 && p.End >= p.Start && p.End < size &&
				(len(out) == 0 || p.Start > out[len(out)-1].End)
			if !valid {
				return nil, copySourceError(http.StatusBadGateway, "",
					"The copy source's page range "+strconv.FormatInt(p.Start, 10)+"-"+strconv.FormatInt(p.End, 10)+" is not valid.")
			}
			out = append(out, p)
		}
		if list.NextMarker == "" {
			return out, nil
		}
		marker = list.NextMarker
	}
}
