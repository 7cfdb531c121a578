package blob

import (
	"net/http"
	"sort"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// pageRangesArgs is a parsed Get Page Ranges request.
type pageRangesArgs struct {
	conds conditions
	sel   blobdata.Selector
	// prev is the canonical snapshot time of prevsnapshot ("" for none).
	prev string
	// prevBlob is the other blob of this service whose snapshot
	// x-ms-previous-snapshot-url names; nil for the blob read itself.
	prevBlob *copySource
	from, to int64 // the pages asked about, inclusive
	// rangeStart is the first byte the request's range names, -1 for none.
	rangeStart int64
	max        int   // 0: no limit
	marker     int64 // the offset the page of results starts at
	paged      bool  // marker or maxresults given: answer a NextMarker
}

func (s *Service) parsePageRanges(r *http.Request) (pageRangesArgs, error) {
	a := pageRangesArgs{to: blobdata.MaxPageBlobSize - 1, rangeStart: -1}
	var err error
	if a.conds, a.sel, err = parseSelectedRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	q := r.URL.Query()
	if raw, ok := q["prevsnapshot"]; ok {
		var valid bool
		if a.prev, valid = blobdata.ParseStamp(raw[0]); !valid {
			return a, azerr.InvalidQuery("prevsnapshot", raw[0], "")
		}
	}
	if r.Header.Get(previousSnapshotURL) != "" {
		if a.prev, a.prevBlob, err = s.previousSnapshot(r); err != nil {
			return a, err
		}
	}
	if err := a.parseRange(r.Header); err != nil {
		return a, err
	}
	return a, a.parsePaging(q)
}

const previousSnapshotURL = "X-Ms-Previous-Snapshot-Url"

// previousSnapshot reads x-ms-previous-snapshot-url, the URL form of
// prevsnapshot that managed disks use: a snapshot of a page blob of this
// service, the one the request reads or another (the diff between two
// disks, one made from the other's snapshot). Its snapshot time is
// returned, with the other blob when it is one.
func (s *Service) previousSnapshot(r *http.Request) (string, *copySource, error) {
	src, err := s.parseBlobURL(r, previousSnapshotURL)
	if err != nil {
		return "", nil, err
	}
	raw := r.Header.Get(previousSnapshotURL)
	snapshot := src.url.Query().Get("snapshot")
	if snapshot == "" {
		return "", nil, azerr.InvalidHeader("x-ms-previous-snapshot-url", raw)
	}
	stamp, valid := blobdata.ParseStamp(snapshot)
	if !valid {
		return "", nil, azerr.InvalidHeader("x-ms-previous-snapshot-url", raw)
	}
	if !src.local {
		return "", nil, azerr.Newf(azerr.PreviousSnapshotOperationNotSupported,
			"x-ms-previous-snapshot-url must name a snapshot on this Blob service.")
	}
	if src.account == request.Of(r).Account && src.t == targetOf(r) {
		return stamp, nil, nil
	}
	return stamp, &src, nil
}

// parseRange reads the optional range, widened to whole pages.
func (a *pageRangesArgs) parseRange(h http.Header) error {
	raw, name := h.Get("X-Ms-Range"), "x-ms-range"
	if raw == "" {
		raw, name = h.Get("Range"), "Range"
	}
	if raw == "" {
		return nil
	}
	rng, err := byterange.ParseRead(raw)
	if err != nil {
		return azerr.InvalidHeader(name, raw)
	}
	if rng == nil {
		return nil
	}
	a.rangeStart = rng.Start
	a.from = rng.Start / blobdata.PageSize * blobdata.PageSize
	if rng.End >= 0 {
		a.to = min(rng.End/blobdata.PageSize*blobdata.PageSize+blobdata.PageSize-1, a.to)
	}
	return nil
}

func (a *pageRangesArgs) parsePaging(q map[string][]string) error {
	if raw, ok := q["maxresults"]; ok {
		n, err := strconv.Atoi(raw[0])
		if err != nil {
			return azerr.InvalidQuery("maxresults", raw[0], "")
		}
		if n <= 0 {
			return azerr.OutOfRangeQuery("maxresults", raw[0], 1, 2147483647)
		}
		a.max, a.paged = n, true
	}
	if raw, ok := q["marker"]; ok && raw[0] != "" {
		n, err := strconv.ParseInt(raw[0], 10, 64)
		if err != nil || n < 0 {
			return azerr.InvalidQuery("marker", raw[0], "")
		}
		a.marker, a.paged = n, true
	}
	return nil
}

// rangeItem is one entry of a PageList: written or (in a diff) cleared.
type rangeItem struct {
	blobdata.PageRange
	cleared bool
}

// getPageRanges is Get Page Ranges: the written pages of a page blob (or
// of one of its snapshots), or with prevsnapshot the pages changed and
// cleared since that snapshot, read from one consistent View.
func (s *Service) getPageRanges(w http.ResponseWriter, r *http.Request) error {
	a, err := s.parsePageRanges(r)
	if err != nil {
		return err
	}
	t := targetOf(r)
	info := request.Of(r)
	var b *blobdata.Blob
	var items []rangeItem
	var across *crossDiff
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		_, found, err := blobdata.LoadContainer(tx, info.Account, t.Container)
		if err != nil {
			return err
		}
		if !found {
			return containerNotFound()
		}
		if b, err = s.viewPageBlob(tx, r, a); err != nil {
			return err
		}
		items, across, err = s.pageItems(tx, r, a, b)
		return err
	})
	if err == nil && across != nil {
		items, err = s.narrowByContent(r.Context(), across, items)
	}
	if err != nil {
		return err
	}
	next := ""
	if a.max > 0 && len(items) > a.max {
		next = strconv.FormatInt(items[a.max].Start, 10)
		items = items[:a.max]
	}
	h := w.Header()
	setBlobETag(h, b)
	h.Set("X-Ms-Blob-Content-Length", itoa(b.Size))
	return writePageList(w, items, next, a.paged)
}

// viewPageBlob loads the page blob (or snapshot) a Get Page Ranges reads
// and checks its conditions and lease.
func (s *Service) viewPageBlob(tx store.Tx, r *http.Request, a pageRangesArgs) (*blobdata.Blob, error) {
	t := targetOf(r)
	info := request.Of(r)
	b, err := blobdata.LoadState(tx, info.Account, t.Container, t.Blob, a.sel, s.now())
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, blobNotFound()
	}
	if err := checkReadConditions(a.conds, b, info.Version); err != nil {
		return nil, err
	}
	if a.sel.Base() {
		if err := b.Lease.CheckRead(leaseID(r), s.now(), lease.Blob); err != nil {
			return nil, err
		}
	}
	if b.Type != blobdata.PageBlob {
		return nil, azerr.New(azerr.InvalidBlobType)
	}
	// A range that starts at or past the end is 416, as for Get Blob
	// (azure-sdk-for-net's recorded GetPageRangesAsync_Error).
	if a.rangeStart >= 0 && a.rangeStart >= b.Size {
		return nil, azerr.New(azerr.InvalidRange)
	}
	return b, nil
}

// pageItems lists the ranges of b (from the marker on), or its diff from
// the previous snapshot, in offset order. A diff from another blob's
// snapshot comes with what narrowByContent needs to finish it.
func (s *Service) pageItems(tx store.Tx, r *http.Request, a pageRangesArgs, b *blobdata.Blob) ([]rangeItem, *crossDiff, error) {
	segs, err := b.Segments()
	if err != nil {
		return nil, nil, err
	}
	from := max(a.from, a.marker)
	if a.prev == "" {
		var items []rangeItem
		for _, p := range blobdata.WrittenRanges(segs, from, a.to) {
			items = append(items, rangeItem{PageRange: p})
		}
		return items, nil, nil
	}
	if a.sel.Snapshot != "" && a.prev >= a.sel.Snapshot {
		return nil, nil, azerr.New(azerr.PreviousSnapshotCannotBeNewer)
	}
	prev, err := s.loadPreviousSnapshot(tx, r, a)
	if err != nil {
		return nil, nil, err
	}
	prevSegs, err := prev.Segments()
	if err != nil {
		return nil, nil, err
	}
	var across *crossDiff
	if a.prevBlob != nil {
		across = &crossDiff{prev: prevSegs, cur: segs}
	}
	changed, cleared := blobdata.PageDiff(prevSegs, segs, from, a.to)
	items := make([]rangeItem, 0, len(changed)+len(cleared))
	for _, p := range changed {
		items = append(items, rangeItem{PageRange: p})
	}
	for _, p := range cleared {
		items = append(items, rangeItem{PageRange: p, cleared: true})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Start < items[j].Start })
	return items, across, nil
}

// loadPreviousSnapshot loads the snapshot a diff starts from: of the blob
// read, or of the other blob x-ms-previous-snapshot-url names, which the
// caller must be allowed to read as a copy source (a SAS in the URL, or
// Shared Key or Bearer of its account).
func (s *Service) loadPreviousSnapshot(tx store.Tx, r *http.Request, a pageRangesArgs) (*blobdata.Blob, error) {
	account, t := request.Of(r).Account, targetOf(r)
	if src := a.prevBlob; src != nil {
		c, found, err := blobdata.LoadContainer(tx, src.account, src.t.Container)
		if err != nil {
			return nil, err
		}
		if err := s.sourceReadable(r, *src, c); err != nil {
			return nil, err
		}
		if !found {
			return nil, azerr.New(azerr.PreviousSnapshotNotFound)
		}
		account, t = src.account, src.t
	}
	prev, err := blobdata.LoadState(tx, account, t.Container, t.Blob, blobdata.Selector{Snapshot: a.prev}, s.now())
	if err != nil {
		return nil, err
	}
	if prev == nil {
		return nil, azerr.New(azerr.PreviousSnapshotNotFound)
	}
	if prev.Type != blobdata.PageBlob {
		return nil, azerr.New(azerr.InvalidBlobType)
	}
	return prev, nil
}

// writePageList renders a PageList body.
func writePageList(w http.ResponseWriter, items []rangeItem, next string, paged bool) error {
	x := newXMLWriter()
	x.Open("PageList")
	for _, it := range items {
		name := "PageRange"
		if it.cleared {
			name = "ClearRange"
		}
		x.Open(name)
		x.Int("Start", it.Start)
		x.Int("End", it.End)
		x.Close(name)
	}
	if paged || next != "" {
		x.Elem("NextMarker", next)
	}
	x.Close("PageList")
	return x.Send(w, http.StatusOK)
}
