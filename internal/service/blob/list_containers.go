package blob

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// containerItem is one container of a List Containers page.
type containerItem struct {
	name string
	rec  *blobdata.Container
}

// listContainers is List Containers: the account's containers in name
// order, one page from the marker, scanning only that page's records.
func (s *Service) listContainers(w http.ResponseWriter, r *http.Request) error {
	p, err := parseListParams(r.URL.Query(), includeContainers)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	var items []containerItem
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		items, err = scanContainers(tx, account, p, s.now())
		return err
	})
	if err != nil {
		return err
	}
	next := ""
	if len(items) > p.max {
		next = items[p.max].name
		items = items[:p.max]
	}
	vlw, err := s.immutableVersions(r)
	if err != nil {
		return err
	}
	now := s.now()
	x := newXMLWriter()
	x.WriteString("<EnumerationResults")
	x.Attr("ServiceEndpoint", serviceEndpoint(r))
	x.WriteString(">")
	p.writeHeader(x, false)
	x.Open("Containers")
	for _, it := range items {
		writeContainerItem(x, it, p.include["metadata"], vlw, now)
	}
	x.Close("Containers")
	x.Elem("NextMarker", next)
	x.Close("EnumerationResults")
	return x.Send(w, http.StatusOK)
}

// scanContainers returns up to max+1 visible containers from the page start.
func scanContainers(tx store.Tx, account string, p listParams, now time.Time) ([]containerItem, error) {
	prefixKey := store.NewKey(store.SpaceContainer).Str(account).Str(p.prefix)
	prefixKey = prefixKey[:len(prefixKey)-2]
	start := blobdata.ContainerKey(account, p.startName())
	if p.startName() == p.prefix {
		start = prefixKey
	}
	var items []containerItem
	var decodeErr error
	err := tx.Scan(start, store.PrefixEnd(prefixKey), store.ScanOptions{}, func(k, v []byte) bool {
		c, err := blobdata.DecodeContainer(v)
		if err != nil {
			decodeErr = err
			return false
		}
		if !listedContainer(c, p.include["deleted"], now) {
			return true
		}
		kr := store.ReadKey(k, store.SpaceContainer)
		kr.Str()
		name := kr.Str()
		if name == logsContainer && !p.include["system"] {
			// A system container, listed only when asked for.
			return true
		}
		items = append(items, containerItem{name: name, rec: c})
		return len(items) <= p.max
	})
	if err != nil {
		return nil, err
	}
	return items, decodeErr
}

func writeContainerItem(x *xmlWriter, it containerItem, withMetadata, vlw bool, now time.Time) {
	c := it.rec
	x.Open("Container")
	x.Elem("Name", containerItemName(it.name))
	writeDeletedIdentity(x, c)
	x.Open("Properties")
	x.Elem("Last-Modified", httpTime(c.ETag.Time()))
	x.Elem("Etag", c.ETagString())
	writeLeaseElements(x, c.Lease, now)
	if c.Public != blobdata.AccessPrivate {
		x.Elem("PublicAccess", publicAccessName(c.Public))
	}
	x.Elem("DefaultEncryptionScope", containerScopeName(c))
	x.Elem("DenyEncryptionScopeOverride", strconv.FormatBool(c.DenyScopeOverride))
	x.Elem("HasImmutabilityPolicy", "false")
	x.Elem("HasLegalHold", "false")
	x.Elem("ImmutableStorageWithVersioningEnabled", boolText(vlw))
	writeDeletedProperties(x, c, now)
	x.Close("Properties")
	if withMetadata {
		writeMetadataElements(x, c.Metadata)
	}
	x.Close("Container")
}

// serviceEndpoint is the account's base URL as the client addressed it.
func serviceEndpoint(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := scheme + "://" + r.Host + "/"
	if info := request.Of(r); info.PathStyle {
		u += info.Account + "/"
	}
	return u
}
