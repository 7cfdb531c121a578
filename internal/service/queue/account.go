package queue

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// maxPropertiesBody bounds a Set Queue Service Properties body.
const maxPropertiesBody = 1 << 20

// listParams are the query parameters of List Queues.
type listParams struct {
	prefix, marker string
	hasPrefix      bool
	hasMarker      bool
	maxResults     int
	maxText        string // maxresults as sent, echoed in MaxResults
	metadata       bool
}

func parseListParams(r *http.Request) (listParams, error) {
	q := r.URL.Query()
	var p listParams
	_, p.hasPrefix = q["prefix"]
	_, p.hasMarker = q["marker"]
	p.maxText = q.Get("maxresults")
	p.prefix, p.marker = q.Get("prefix"), q.Get("marker")
	var err error
	if p.maxResults, err = maxResults(q); err != nil {
		return p, err
	}
	for _, inc := range q["include"] {
		for _, item := range strings.Split(inc, ",") {
			switch strings.TrimSpace(item) {
			case "metadata":
				p.metadata = true
			case "":
			default:
				return p, azerr.InvalidQuery("include", inc, "")
			}
		}
	}
	return p, nil
}

// listedQueue is one queue of a List Queues page.
type listedQueue struct {
	name string
	meta metadata.Set
}

// listQueues is List Queues: queues in name order from the marker, filtered
// by prefix, at most maxresults, with NextMarker naming the next queue.
func (s *Service) listQueues(w http.ResponseWriter, r *http.Request, t target) error {
	p, err := parseListParams(r)
	if err != nil {
		return err
	}
	info := request.Of(r)
	page, next, err := s.scanQueues(r, info.Account, p)
	if err != nil {
		return err
	}
	return writeXML(w, r, http.StatusOK, appendQueueList(nil, serviceEndpoint(r, info), p, page, next))
}

// scanQueues reads one page of queue records. The marker is the name of the
// first queue of the page ("/account/queue", as the service writes it, or
// the bare name).
func (s *Service) scanQueues(r *http.Request, account string, p listParams) ([]listedQueue, string, error) {
	base := queuesPrefix(account)
	start := appendNamePrefix(base, p.prefix)
	end := store.PrefixEnd(start)
	if marker := strings.TrimPrefix(p.marker, "/"+account+"/"); marker != "" {
		if from := queueKey(account, marker); bytes.Compare(from, start) > 0 {
			start = from
		}
	}
	var page []listedQueue
	next := ""
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		page, next = page[:0], ""
		var inner error
		err := tx.Scan(start, end, store.ScanOptions{Limit: p.maxResults + 1}, func(k, v []byte) bool {
			kr := store.ReadKey(k, store.SpaceQueue)
			_, name := kr.Str(), kr.Str()
			if inner = kr.Err(); inner != nil {
				return false
			}
			if len(page) == p.maxResults {
				next = "/" + account + "/" + name
				return false
			}
			item := listedQueue{name: name}
			if p.metadata {
				var q queueRecord
				if q, inner = decodeQueue(v); inner != nil {
					return false
				}
				item.meta = q.Meta
			}
			page = append(page, item)
			return true
		})
		if err != nil {
			return err
		}
		return inner
	})
	return page, next, err
}

// appendNamePrefix appends the key encoding of a name prefix: the string
// element without its terminator, so that every longer name sorts after it.
func appendNamePrefix(base []byte, prefix string) []byte {
	k := store.Key(bytes.Clone(base)).Str(prefix)
	return k[:len(k)-2]
}

// serviceEndpoint is the URL of the queue service as the client addressed
// it, for the ServiceEndpoint attribute.
func serviceEndpoint(r *http.Request, info *request.Info) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := scheme + "://" + r.Host + "/"
	if info.PathStyle {
		u += info.Account + "/"
	}
	return u
}

// appendQueueList renders the List Queues body.
func appendQueueList(dst []byte, endpoint string, p listParams, page []listedQueue, next string) []byte {
	x := newXML(dst)
	x.Open("EnumerationResults", "ServiceEndpoint", endpoint)
	if p.hasPrefix {
		x.Elem("Prefix", p.prefix)
	}
	if p.hasMarker {
		x.Elem("Marker", p.marker)
	}
	if p.maxText != "" {
		x.Elem("MaxResults", p.maxText)
	}
	x.Open("Queues")
	for _, q := range page {
		x.Open("Queue")
		x.Elem("Name", q.name)
		if p.metadata {
			x.Open("Metadata")
			for _, kv := range q.meta {
				x.Elem(kv.Name, kv.Value)
			}
			x.Close("Metadata")
		}
		x.Close("Queue")
	}
	x.Close("Queues")
	x.Elem("NextMarker", next)
	x.Close("EnumerationResults")
	return x.Bytes()
}

// getProperties is Get Queue Service Properties.
func (s *Service) getProperties(w http.ResponseWriter, r *http.Request, t target) error {
	props, err := svcprops.Get(r.Context(), s.store, request.Of(r).Account, string(s.Name()))
	if err != nil {
		return err
	}
	return writeXML(w, r, http.StatusOK, props.Marshal())
}

// setProperties is Set Queue Service Properties: the elements present in
// the body replace the stored ones; 202 Accepted as the service answers.
func (s *Service) setProperties(w http.ResponseWriter, r *http.Request, t target) error {
	body, err := readBody(r, maxPropertiesBody)
	if err != nil {
		return err
	}
	props, err := svcprops.ParseNonEmpty(bytes.NewReader(body))
	if err != nil {
		return err
	}
	if err := svcprops.Set(r.Context(), s.store, request.Of(r).Account, string(s.Name()), props); err != nil {
		return err
	}
	return writeEmpty(w, http.StatusAccepted)
}

// getStats is Get Queue Service Stats. Lazuli has one copy of the data,
// always current, so geo-replication is reported live and synced now.
func (s *Service) getStats(w http.ResponseWriter, r *http.Request, t target) error {
	x := newXML(nil)
	x.Open("StorageServiceStats")
	x.Open("GeoReplication")
	x.Elem("Status", "live")
	writeTime(x, "LastSyncTime", nanos(s.clock.Now()))
	x.Close("GeoReplication")
	x.Close("StorageServiceStats")
	return writeXML(w, r, http.StatusOK, x.Bytes())
}
