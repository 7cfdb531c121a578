package blob

import (
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// blobItem is one entry of a List Blobs page: a blob, or a BlobPrefix
// when rec is nil.
type blobItem struct {
	name string
	rec  *blobdata.Blob
	// elem is the state the record is (blobdata/states.go); ord its place among
	// the states of the name in a listing of snapshots, versions or deleted
	// blobs ("" in a listing of base blobs only), which the next marker
	// carries; versionsOnly marks the entry of a deleted blob that has
	// versions (include=deletedwithversions).
	elem, ord    string
	versionsOnly bool
}

// listBlobs is List Blobs: the container's blobs in byte-wise name order,
// one page from the marker; with a delimiter, names sharing a prefix up to
// the delimiter collapse into one BlobPrefix and the scan seeks past them,
// so a page costs what it shows, not what the container holds.
func (s *Service) listBlobs(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := validContainerName(t.Container); err != nil {
		return err
	}
	p, err := parseListParams(r.URL.Query(), includeBlobs)
	if err != nil {
		return err
	}
	p.startFrom, p.endBefore = r.URL.Query().Get("startFrom"), r.URL.Query().Get("endBefore")
	if p.showOnly, err = s.parseShowOnly(r); err != nil {
		return err
	}
	account := request.Of(r).Account
	var items []blobItem
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		_, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		if !found {
			return containerNotFound()
		}
		if p.listsStates() && p.showOnly == "" {
			items, err = scanStates(tx, account, t.Container, p, s.now())
		} else {
			items, err = scanBlobs(tx, account, t.Container, p, s.now())
		}
		if err != nil {
			return err
		}
		return checkListed(tx, r, items, p.delimiter)
	})
	if err != nil {
		return err
	}
	next := ""
	if len(items) > p.max {
		next = items[p.max].marker()
		items = items[:p.max]
	}
	return s.writeBlobList(w, r, t.Container, p, items, next)
}

// scanBlobs collects up to max+1 items from the page start.
func scanBlobs(tx store.Tx, account, container string, p listParams, now time.Time) ([]blobItem, error) {
	prefixKey := blobdata.NamePrefixKey(account, container, p.prefix)
	end := p.scanEnd(account, container)
	start := prefixKey
	if p.startName() != p.prefix {
		start = store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(p.startName())
	}
	var items []blobItem
	for start != nil {
		var seek []byte
		var scanErr error
		err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
			name, version, err := blobdata.BlobNameFromKey(k)
			if err != nil {
				scanErr = err
				return false
			}
			if version != p.listedElem() {
				return true
			}
			rec, err := blobdata.DecodeBlobProperties(v)
			if err != nil {
				scanErr = err
				return false
			}
			// A record not listed (list_showonly.go) does not make a
			// BlobPrefix either.
			if !p.listedRecord(rec, now) {
				return true
			}
			if p.delimiter != "" {
				if i := strings.Index(name[len(p.prefix):], p.delimiter); i >= 0 {
					group := name[:len(p.prefix)+i+len(p.delimiter)]
					items = append(items, blobItem{name: group})
					seek = store.PrefixEnd(blobdata.NamePrefixKey(account, container, group))
					return false
				}
			}
			items = append(items, blobItem{name: name, rec: rec})
			return len(items) <= p.max
		})
		if err != nil || scanErr != nil {
			return nil, firstErr(err, scanErr)
		}
		start = nil
		if seek != nil && len(items) <= p.max && (end == nil || string(seek) < string(end)) {
			start = seek
		}
	}
	return items, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// listItemBytes is about what one listed blob takes in the answer (a
// 5,000-blob page of short names and no metadata is 3.2 to 3.7 MB). The
// answer's buffer is sized for its items up front: grown by copying, a
// full page's buffer allocated six times the answer and took nearly half
// of writing it (docs/performance.md, Growth).
const listItemBytes = 768

func (s *Service) writeBlobList(w http.ResponseWriter, r *http.Request, container string, p listParams, items []blobItem, next string) error {
	now := s.now()
	p.encodeNames = request.Of(r).Version >= encodedNamesVersion
	x := newSizedXMLWriter(1024 + len(items)*listItemBytes)
	x.WriteString("<EnumerationResults")
	x.Attr("ServiceEndpoint", serviceEndpoint(r))
	x.Attr("ContainerName", container)
	x.WriteString(">")
	p.writeHeader(x, true)
	x.Open("Blobs")
	for _, it := range items {
		if it.rec == nil {
			x.Open("BlobPrefix")
			writeName(x, it.name, p.encodeNames)
			x.Close("BlobPrefix")
			continue
		}
		writeBlobItem(x, it, p, now)
	}
	x.Close("Blobs")
	x.Elem("NextMarker", next)
	x.Close("EnumerationResults")
	return x.Send(w, http.StatusOK)
}

func writeBlobItem(x *xmlWriter, it blobItem, p listParams, now time.Time) {
	b := it.rec
	x.Open("Blob")
	writeName(x, it.name, p.encodeNames)
	writeDeletionIdentity(x, it, p)
	writeItemIdentity(x, it, p, now)
	x.Open("Properties")
	x.Elem("Creation-Time", httpTime(b.Created))
	x.Elem("Last-Modified", httpTime(b.LastModified()))
	x.Elem("Etag", b.ETagBare())
	x.Int("Content-Length", b.Size)
	x.Elem("Content-Type", b.Props.Type)
	x.Elem("Content-Encoding", b.Props.Encoding)
	x.Elem("Content-Language", b.Props.Language)
	if len(b.Props.MD5) > 0 {
		x.Elem("Content-MD5", base64.StdEncoding.EncodeToString(b.Props.MD5))
	}
	x.Elem("Cache-Control", b.Props.CacheControl)
	x.Elem("Content-Disposition", b.Props.Disposition)
	x.Elem("BlobType", b.Type.String())
	writeSequenceElement(x, b)
	if b.Committed {
		writeTierElements(x, b, now)
	}
	writeLeaseElements(x, b.Lease, now)
	if p.include["copy"] {
		writeCopyElements(x, b, now)
	}
	x.Elem("ServerEncrypted", "true")
	if k := b.Encryption.KeySHA256; k != "" {
		x.Elem("CustomerProvidedKeySha256", k)
	}
	if scope := b.Encryption.Scope; scope != "" {
		x.Elem("EncryptionScope", scope)
	}
	writeKindElements(x, b)
	writeExpiryElement(x, b)
	writeImmutabilityElements(x, b, p)
	writeDeletedElements(x, it, now)
	x.Close("Properties")
	if p.include["metadata"] {
		writeMetadataElements(x, b.Metadata)
	}
	writeTagsElement(x, b, p)
	x.Close("Blob")
}
