package blob

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Blob expiry. Set Blob Expiry (and x-ms-expiry-option on Put Blob) gives
// the base blob an instant after which it no longer exists: every read,
// write and listing compares that stored instant with the clock at request
// time, so a blob is gone (404 BlobNotFound) from the instant on, on every
// node, whether or not anything removed it yet. Its records are removed
// later, by the expiry reaper (expiry_reaper.go), or by the first write
// that finds it (blobdata.LoadBlobForWrite), never by a read.
//
// Azure serves Set Blob Expiry, and the expiry headers of Put Blob, only on
// accounts with a hierarchical namespace; a flat account answers 400
// HierarchicalNamespaceNotEnabled ("Set Blob Expiry": "allowed only on
// hierarchical namespace-enabled accounts"; the SDK's recorded
// TestBlockBlobSetExpiryOnHnsDisabledAccount). Lazuli's accounts are flat
// unless --hnsAccounts names them. Only the base blob expires: its snapshots and
// previous versions stay. A write that replaces the whole blob (Put Blob,
// Put Block List, a copy, creating a page or append blob) starts with no
// expiry unless it sets one; the other writes keep it.

// The expiry options (x-ms-expiry-option, case-insensitive).
const (
	expiryNever              = "NeverExpire"
	expiryRelativeToCreation = "RelativeToCreation"
	expiryRelativeToNow      = "RelativeToNow"
	expiryAbsolute           = "Absolute"
)

const (
	hdrExpiryOption = "X-Ms-Expiry-Option"
	hdrExpiryTime   = "X-Ms-Expiry-Time"
)

// expiryRequest is a parsed x-ms-expiry-option and x-ms-expiry-time.
type expiryRequest struct {
	option string
	// relative is the milliseconds of a relative option; absolute the
	// instant of Absolute.
	relative time.Duration
	absolute time.Time
}

// parseExpiry reads the expiry headers; ok is false when the request has
// none. NeverExpire takes no time; the other options require one: a
// number of milliseconds for the relative options, an RFC 1123 date for
// Absolute.
func parseExpiry(h http.Header) (e expiryRequest, ok bool, err error) {
	raw := h.Get(hdrExpiryOption)
	rawTime, hasTime := h.Get(hdrExpiryTime), h.Get(hdrExpiryTime) != ""
	if raw == "" {
		if hasTime {
			return e, false, azerr.MissingHeader("x-ms-expiry-option")
		}
		return e, false, nil
	}
	for _, o := range []string{expiryNever, expiryRelativeToCreation, expiryRelativeToNow, expiryAbsolute} {
		if strings.EqualFold(raw, o) {
			e.option = o
		}
	}
	switch {
	case e.option == "":
		return e, false, azerr.InvalidHeader("x-ms-expiry-option", raw)
	case e.option == expiryNever && hasTime:
		return e, false, azerr.InvalidHeader("x-ms-expiry-time", rawTime)
	case e.option == expiryNever:
		return e, true, nil
	case !hasTime:
		return e, false, azerr.MissingHeader("x-ms-expiry-time")
	case e.option == expiryAbsolute:
		t, perr := http.ParseTime(rawTime)
		if perr != nil {
			return e, false, azerr.InvalidHeader("x-ms-expiry-time", rawTime)
		}
		e.absolute = t.UTC()
		return e, true, nil
	}
	ms, perr := strconv.ParseInt(rawTime, 10, 64)
	if perr != nil || ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
		return e, false, azerr.InvalidHeader("x-ms-expiry-time", rawTime)
	}
	e.relative = time.Duration(ms) * time.Millisecond
	return e, true, nil
}

// createExpiryVersion is the first service version whose Put Blob takes
// the expiry headers; older requests' are ignored, as unknown headers are.
const createExpiryVersion = "2023-08-03"

// parseCreateExpiry reads the expiry headers of a write that creates the
// blob (Put Blob); nil when there are none.
func (s *Service) parseCreateExpiry(r *http.Request) (*expiryRequest, error) {
	if v := request.Of(r).Version; v != "" && v < createExpiryVersion {
		return nil, nil
	}
	e, ok, err := parseExpiry(r.Header)
	if err != nil || !ok {
		return nil, err
	}
	return &e, s.needHNS(r)
}

// isHNS reports whether the request's account has a hierarchical namespace.
func (s *Service) isHNS(r *http.Request) bool { return s.hns[request.Of(r).Account] }

// needHNS refuses an expiry on an account without a hierarchical namespace.
func (s *Service) needHNS(r *http.Request) error {
	if !s.isHNS(r) {
		return azerr.New(azerr.HierarchicalNamespaceNotEnabled)
	}
	return nil
}

// apply gives a blob being written the expiry the request asks for; a nil
// request leaves it without one.
func (e *expiryRequest) apply(rec *blobdata.Blob, now time.Time) error {
	if e == nil {
		return nil
	}
	at, err := e.resolve(now, rec.Created)
	rec.ExpiresOn = at
	return err
}

// maxExpiry is the latest instant an expiry may name: the last one the
// service's four-digit years can write.
var maxExpiry = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// resolve computes the expiry instant of a blob created at created, at
// now: zero for NeverExpire. An absolute instant that is not in the
// future, or any beyond year 9999, is 400 InvalidHeaderValue, as the
// service refuses an absolute time already past. An offset from creation
// that has already elapsed is taken, and the blob expires at once: the
// Data Lake SDK's recorded TestFileSetExpiry sets 10 ms from creation on a
// file created earlier, the service accepts it, and the file is gone when
// read next.
func (e expiryRequest) resolve(now, created time.Time) (time.Time, error) {
	var at time.Time
	switch e.option {
	case expiryNever:
		return time.Time{}, nil
	case expiryAbsolute:
		at = e.absolute
	case expiryRelativeToCreation:
		at = created.Add(e.relative)
		if !at.After(now) && !at.After(maxExpiry) {
			return at.UTC(), nil
		}
	default:
		at = now.Add(e.relative)
	}
	if !at.After(now) || at.After(maxExpiry) {
		return time.Time{}, azerr.InvalidHeader("x-ms-expiry-time", "")
	}
	return at.UTC(), nil
}

// setBlobExpiry is Set Blob Expiry: the base blob's expiry changes in one
// Update; the ETag and Last-Modified stay as they were (the expiry is a
// system property, like the lease). The operation takes the lease ID and
// no conditional headers.
func (s *Service) setBlobExpiry(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseBaseRequest(r, 0); err != nil {
		return err
	}
	if err := s.needHNS(r); err != nil {
		return err
	}
	e, ok, err := parseExpiry(r.Header)
	if err != nil {
		return err
	}
	if !ok {
		return azerr.MissingHeader("x-ms-expiry-option")
	}
	t := targetOf(r)
	account := request.Of(r).Account
	var rec *blobdata.Blob
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		_, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		if !found {
			return containerNotFound()
		}
		now := s.now()
		b, err := blobdata.LoadLiveBlob(tx, account, t.Container, t.Blob, now)
		if err != nil || b == nil {
			return firstErr(err, blobNotFound())
		}
		if err := b.Lease.CheckWrite(leaseID(r), now, lease.Blob); err != nil {
			return err
		}
		if b.Type == blobdata.PageBlob {
			// The SDKs offer it for block and append blobs: the accounts
			// that have it (hierarchical namespace) hold no page blobs.
			return azerr.New(azerr.InvalidBlobType)
		}
		old := *b
		if b.ExpiresOn, err = e.resolve(now, b.Created); err != nil {
			return err
		}
		if err := blobdata.ReindexExpiry(tx, account, t.Container, t.Blob, &old, b); err != nil {
			return err
		}
		rec = b
		return blobdata.SaveBlob(tx, account, t.Container, t.Blob, b)
	})
	if err != nil {
		return err
	}
	setBlobETag(w.Header(), rec)
	return write(w, http.StatusOK)
}

// setExpiryHeader writes x-ms-expiry-time for a blob that has an expiry.
func setExpiryHeader(h http.Header, b *blobdata.Blob) {
	if !b.ExpiresOn.IsZero() {
		h.Set(hdrExpiryTime, httpTime(b.ExpiresOn))
	}
}

// writeExpiryElement writes the Expiry-Time property of a listed blob.
func writeExpiryElement(x *xmlWriter, b *blobdata.Blob) {
	if !b.ExpiresOn.IsZero() {
		x.Elem("Expiry-Time", httpTime(b.ExpiresOn))
	}
}

// withoutExpired drops the found blobs that have expired but are still in
// the tag index because the reaper has not removed them yet. Such blobs
// exist only while an expiry index entry is due, so in the usual case this
// costs one read of the index and nothing per blob.
func withoutExpired(tx store.Tx, account string, found []foundBlob, now time.Time) ([]foundBlob, error) {
	due, err := hasEntry(tx, store.NewKey(store.SpaceBlobExpiry), dueEnd(now))
	if err != nil || !due {
		return found, err
	}
	live := found[:0]
	for _, f := range found {
		b, err := blobdata.LoadLiveBlob(tx, account, f.container, f.name, now)
		if err != nil {
			return nil, err
		}
		if b != nil {
			live = append(live, f)
		}
	}
	return live, nil
}
