package file

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/request"
	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/svcprops"
)

// listedShare is one entry of List Shares.
type listedShare struct {
	name, snap string
	rec        *shareRecord
}

func (s *Service) listShares(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	q := r.URL.Query()
	prefix, marker := q.Get("prefix"), q.Get("marker")
	withMeta, withSnaps, err := parseShareInclude(q.Get("include"))
	if err != nil {
		return err
	}
	max, err := parseMaxResults(r)
	if err != nil {
		return err
	}
	start := store.NewKey(store.SpaceShare).Str(t.Account).Str(prefix)
	start = start[:len(start)-2]
	end := store.PrefixEnd(start)
	if marker != "" {
		name, snap, ok := decodeShareMarker(marker)
		if !ok {
			return azerr.InvalidQuery("marker", marker, "The marker is not valid.")
		}
		if k := shareKey(t.Account, name, snap); string(k) > string(start) {
			start = k
		}
	}
	var page []listedShare
	next := ""
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		var decodeErr error
		err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
			kr := store.ReadKey(k, store.SpaceShare)
			kr.Str()
			name, snap := kr.Str(), kr.Str()
			if kr.Err() != nil || (snap != "" && !withSnaps) {
				return true
			}
			if len(page) == max {
				next = encodeShareMarker(name, snap)
				return false
			}
			rec, err := decodeShare(v)
			if err != nil {
				decodeErr = err
				return false
			}
			page = append(page, listedShare{name, snap, rec})
			return true
		})
		if err != nil {
			return err
		}
		return decodeErr
	})
	if err != nil {
		return err
	}
	writeShareList(w, r, page, prefix, marker, q.Get("maxresults"), next, withMeta, s.now())
	return nil
}

// parseShareInclude reads include=metadata,snapshots,deleted. Lazuli keeps
// no deleted shares, so "deleted" lists none.
func parseShareInclude(raw string) (withMeta, withSnaps bool, err error) {
	if raw == "" {
		return false, false, nil
	}
	for _, part := range strings.Split(raw, ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "metadata":
			withMeta = true
		case "snapshots":
			withSnaps = true
		case "deleted":
		default:
			return false, false, azerr.InvalidQuery("include", raw, "")
		}
	}
	return withMeta, withSnaps, nil
}

func encodeShareMarker(name, snap string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(name + "\x00" + snap))
}

func decodeShareMarker(m string) (name, snap string, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(m)
	if err != nil {
		return "", "", false
	}
	name, snap, ok = strings.Cut(string(raw), "\x00")
	return name, snap, ok
}

func writeShareList(w http.ResponseWriter, r *http.Request, page []listedShare, prefix, marker, maxRaw, next string, withMeta bool, now time.Time) {
	x := newXML()
	x.Open("EnumerationResults", "ServiceEndpoint", serviceEndpoint(r))
	if prefix != "" {
		x.Elem("Prefix", prefix)
	}
	if marker != "" {
		x.Elem("Marker", marker)
	}
	if maxRaw != "" {
		x.Elem("MaxResults", maxRaw)
	}
	x.Open("Shares")
	for _, e := range page {
		x.Open("Share")
		x.Elem("Name", e.name)
		if e.snap != "" {
			x.Elem("Snapshot", e.snap)
		}
		sh := e.rec
		x.Open("Properties")
		x.Elem("Last-Modified", sh.LastModified().Format(http.TimeFormat))
		x.Elem("Etag", sh.ETag.String())
		x.Elem("Quota", strconv.FormatInt(sh.Quota, 10))
		x.Elem("AccessTier", sh.AccessTier)
		if !sh.TierChanged.IsZero() {
			x.Elem("AccessTierChangeTime", sh.TierChanged.Format(http.TimeFormat))
		}
		writeProtocolElements(x, sh)
		x.Elem("LeaseStatus", sh.Lease.Status(now))
		x.Elem("LeaseState", string(sh.Lease.State(now)))
		if d := sh.Lease.DurationType(now); d != "" {
			x.Elem("LeaseDuration", d)
		}
		x.Close("Properties")
		if withMeta {
			x.Open("Metadata")
			for _, m := range sh.Metadata {
				x.Elem(m.Name, m.Value)
			}
			x.Close("Metadata")
		}
		x.Close("Share")
	}
	x.Close("Shares")
	if next != "" {
		x.Elem("NextMarker", next)
	} else {
		x.Empty("NextMarker")
	}
	x.Close("EnumerationResults")
	x.Send(w, http.StatusOK)
}

// fileProperties keeps the elements the File service has.
func fileProperties(p svcprops.Properties) svcprops.Properties {
	return svcprops.Properties{HourMetrics: p.HourMetrics, MinuteMetrics: p.MinuteMetrics, Cors: p.Cors,
		ShareDeleteRetentionPolicy: p.ShareDeleteRetentionPolicy, ProtocolSettings: p.ProtocolSettings}
}

func (s *Service) getServiceProperties(w http.ResponseWriter, r *http.Request) error {
	p, err := svcprops.Get(r.Context(), s.store, request.Of(r).Account, string(auth.File))
	if err != nil {
		return err
	}
	body := fileProperties(p).Marshal()
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

func (s *Service) setServiceProperties(w http.ResponseWriter, r *http.Request) error {
	p, err := svcprops.Parse(r.Body)
	if err != nil {
		return err
	}
	if err := svcprops.Set(r.Context(), s.store, request.Of(r).Account, string(auth.File), fileProperties(p)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}
