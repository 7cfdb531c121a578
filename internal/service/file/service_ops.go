package file

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/keymove"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// listedShare is one entry of List Shares: a live share, one of its
// snapshots, or a deleted share's version.
type listedShare struct {
	name, snap, version string
	rec                 *shareRecord
}

// shareInclude is what List Shares' include adds.
type shareInclude struct{ metadata, snapshots, deleted bool }

func (s *Service) listShares(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	q := r.URL.Query()
	prefix, marker := q.Get("prefix"), q.Get("marker")
	inc, err := parseShareInclude(q.Get("include"))
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
	now := s.now()
	var page []listedShare
	next := ""
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		var decodeErr error
		hiddenName := "" // a live share being deleted or moved: its snapshots are hidden too
		err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
			kr := store.ReadKey(k, store.SpaceShare)
			kr.Str()
			keyName, snap := kr.Str(), kr.Str()
			name, version, deleted := keymove.SplitTombstone(keyName)
			if !deleted {
				name = keyName
			}
			switch {
			case kr.Err() != nil || !strings.HasPrefix(name, prefix) || keyName == hiddenName:
				return true
			case snap != "" && (!inc.snapshots || deleted):
				return true
			case deleted && !inc.deleted:
				return true
			}
			rec, err := decodeShare(v)
			if err != nil {
				decodeErr = err
				return false
			}
			if snap == "" && !listedShareRecord(rec, inc.deleted, now) {
				if !deleted {
					hiddenName = keyName
				}
				return true
			}
			if len(page) == max {
				next = encodeShareMarker(keyName, snap)
				return false
			}
			page = append(page, listedShare{name, snap, version, rec})
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
	s.writeShareList(w, r, page, prefix, marker, q.Get("maxresults"), next, inc.metadata, now)
	return nil
}

// parseShareInclude reads include=metadata,snapshots,deleted.
func parseShareInclude(raw string) (shareInclude, error) {
	var inc shareInclude
	if raw == "" {
		return inc, nil
	}
	for _, part := range strings.Split(raw, ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "metadata":
			inc.metadata = true
		case "snapshots":
			inc.snapshots = true
		case "deleted":
			inc.deleted = true
		default:
			return inc, azerr.InvalidQuery("include", raw, "")
		}
	}
	return inc, nil
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

func (s *Service) writeShareList(w http.ResponseWriter, r *http.Request, page []listedShare, prefix, marker, maxRaw, next string, withMeta bool, now time.Time) {
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
		if e.version != "" {
			x.Elem("Deleted", "true")
			x.Elem("Version", e.version)
		}
		x.Open("Properties")
		x.Elem("Last-Modified", sh.LastModified().Format(http.TimeFormat))
		x.Elem("Etag", sh.ETag.String())
		x.Elem("Quota", strconv.FormatInt(sh.Quota, 10))
		x.Elem("AccessTier", sh.AccessTier)
		if !sh.TierChanged.IsZero() {
			x.Elem("AccessTierChangeTime", sh.TierChanged.Format(http.TimeFormat))
		}
		if state := tierTransitionState(sh); state != "" {
			x.Elem("AccessTierTransitionState", state)
		}
		writeProtocolElements(x, sh)
		s.writePremiumElements(x, request.Of(r).Account, sh)
		writeShareLease(x, e, now)
		if e.version != "" {
			x.Elem("DeletedTime", sh.DeletedAt.Format(http.TimeFormat))
			x.Elem("RemainingRetentionDays", strconv.FormatInt(remainingDays(sh.Purge, now), 10))
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

// writeShareLease writes a listed share's lease elements. A deleted share's
// lease is broken, as the service lists it (azfile's recorded
// TestServiceCreateDeleteRestoreShare).
func writeShareLease(x *xmlWriter, e listedShare, now time.Time) {
	if e.version != "" {
		x.Elem("LeaseStatus", "unlocked")
		x.Elem("LeaseState", "broken")
		return
	}
	l := e.rec.Lease
	x.Elem("LeaseStatus", l.Status(now))
	x.Elem("LeaseState", string(l.State(now)))
	if d := l.DurationType(now); d != "" {
		x.Elem("LeaseDuration", d)
	}
}

// fileProperties keeps the elements the File service has.
func fileProperties(p svcprops.Properties) svcprops.Properties {
	return svcprops.Properties{HourMetrics: p.HourMetrics, MinuteMetrics: p.MinuteMetrics, Cors: p.Cors,
		ShareDeleteRetentionPolicy: p.ShareDeleteRetentionPolicy, ProtocolSettings: p.ProtocolSettings}
}

// defaultProtocolSettings is what Azure answers for an account that never
// set ProtocolSettings: SMB multichannel off (azure-sdk-for-js
// storage-file-share recordings/node/fileserviceclient/
// recording_getproperties.json). The Python SDK fails without it.
const defaultProtocolSettings = "<SMB><Multichannel><Enabled>false</Enabled></Multichannel></SMB>"

func (s *Service) getServiceProperties(w http.ResponseWriter, r *http.Request) error {
	p, err := svcprops.Get(r.Context(), s.store, request.Of(r).Account, string(auth.File))
	if err != nil {
		return err
	}
	p = fileProperties(p)
	if p.ProtocolSettings == nil {
		p.ProtocolSettings = &svcprops.ProtocolSettings{Inner: []byte(defaultProtocolSettings)}
	}
	body := p.Marshal()
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
