package blob

import (
	"encoding/base64"
	"math"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// listsStates reports whether a listing shows more than base blobs:
// snapshots, versions or soft-deleted blobs.
func (p listParams) listsStates() bool {
	return p.include["snapshots"] || p.include["versions"] || p.include["deleted"] || p.include["deletedwithversions"]
}

// Places of a name's states in a listing (blobItem.ord): its snapshots
// oldest first, then its previous versions oldest first, then the
// soft-deleted base blob, then the base blob, as the service orders them.
// Key order differs (the base blob's key comes first), so the scanner holds
// the two base records until the name's other states are out.
const (
	ordSnapshot = "1"
	ordVersion  = "2"
	ordDeleted  = "3"
	ordBase     = "4"
)

// markerPrefix starts a marker that points between two states of one
// name; any other marker is a blob name, as base-only listings use.
const markerPrefix = "!s!"

// marker is the NextMarker that resumes a listing at this item. A name
// that itself starts like a state marker is encoded too.
func (it blobItem) marker() string {
	if it.ord == "" && !strings.HasPrefix(it.name, markerPrefix) {
		return it.name
	}
	return markerPrefix + base64.RawURLEncoding.EncodeToString([]byte(it.ord+"\x00"+it.name))
}

// splitMarker returns the name and place a marker resumes at; a plain
// name resumes at its first state.
func splitMarker(m string) (name, ord string) {
	if raw, ok := strings.CutPrefix(m, markerPrefix); ok {
		if b, err := base64.RawURLEncoding.DecodeString(raw); err == nil {
			if o, n, found := strings.Cut(string(b), "\x00"); found {
				return n, o
			}
		}
	}
	return m, ""
}

// stateScan collects the items of a listing of blob states.
type stateScan struct {
	p   listParams
	now time.Time
	// A marker names the first item of the next page: the scan skips
	// every item placed before state resumeOrd of name resumeName.
	resumeName, resumeOrd string
	items                 []blobItem

	// The name being scanned and its held records.
	name              string
	base, deleted     *blobdata.Blob
	latestVersion     *blobdata.Blob
	latestVersionElem string
}

// scanStates collects up to max+1 items from the page start, like
// scanBlobs, with the snapshots, versions and soft-deleted blobs the
// include parameter asks for.
func scanStates(tx store.Tx, account, container string, p listParams, now time.Time) ([]blobItem, error) {
	ss := &stateScan{p: p, now: now}
	ss.resumeName, ss.resumeOrd = splitMarker(p.marker)
	if p.startFrom > ss.resumeName {
		// startFrom lists its own name from its first state on.
		ss.resumeName, ss.resumeOrd = p.startFrom, ""
	}
	prefixKey := blobdata.NamePrefixKey(account, container, p.prefix)
	end := p.scanEnd(account, container)
	start := prefixKey
	if ss.resumeName > p.prefix {
		start = store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(ss.resumeName)
	}
	for start != nil {
		var seek []byte
		var scanErr error
		err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
			name, elem, err := blobdata.BlobNameFromKey(k)
			if err == nil {
				seek, err = ss.visit(account, container, name, elem, v)
			}
			scanErr = err
			return err == nil && seek == nil && !ss.full()
		})
		if err != nil || scanErr != nil {
			return nil, firstErr(err, scanErr)
		}
		start = nil
		if seek != nil && !ss.full() && (end == nil || string(seek) < string(end)) {
			start = seek
		}
	}
	if !ss.full() {
		ss.flush()
	}
	return ss.items, nil
}

func (ss *stateScan) full() bool { return len(ss.items) > ss.p.max }

// visit takes one record in key order. It returns a key to seek to when
// the name rolls up into a BlobPrefix.
func (ss *stateScan) visit(account, container, name, elem string, v []byte) ([]byte, error) {
	if name != ss.name {
		ss.flush()
		ss.name = name
	}
	rec, err := blobdata.DecodeBlobProperties(v)
	if err != nil {
		return nil, err
	}
	if !ss.listed(elem, rec) {
		return nil, nil
	}
	if d := ss.p.delimiter; d != "" {
		if i := strings.Index(name[len(ss.p.prefix):], d); i >= 0 {
			group := name[:len(ss.p.prefix)+i+len(d)]
			ss.base, ss.deleted, ss.latestVersion = nil, nil, nil
			ss.add(blobItem{name: group})
			return store.PrefixEnd(blobdata.NamePrefixKey(account, container, group)), nil
		}
	}
	switch {
	case elem == blobdata.ElemBase:
		ss.base = rec
	case elem == blobdata.ElemDeleted:
		ss.deleted = rec
	case strings.HasPrefix(elem, blobdata.SnapshotPrefix):
		ss.add(blobItem{name: name, rec: rec, elem: elem, ord: ordSnapshot + elem[1:]})
	case strings.HasPrefix(elem, blobdata.VersionPrefix):
		if deleted, _ := rec.SoftDeleted(ss.now); !deleted {
			ss.latestVersion, ss.latestVersionElem = rec, elem
		}
		if ss.p.include["versions"] {
			ss.add(blobItem{name: name, rec: rec, elem: elem, ord: ordVersion + elem[1:]})
		}
	}
	return nil, nil
}

// listed reports whether the include parameter shows this state.
func (ss *stateScan) listed(elem string, rec *blobdata.Blob) bool {
	deleted, expired := rec.SoftDeleted(ss.now)
	inc := ss.p.include
	switch {
	case expired:
		return false
	case elem == blobdata.ElemBase && rec.ExpiredAt(ss.now):
		return false
	case elem == blobdata.ElemBase:
		return rec.Committed || inc["uncommittedblobs"]
	case elem == blobdata.ElemDeleted:
		return inc["deleted"]
	case strings.HasPrefix(elem, blobdata.SnapshotPrefix):
		return inc["snapshots"] && (!deleted || inc["deleted"])
	case strings.HasPrefix(elem, blobdata.VersionPrefix):
		// A live version also stands for its deleted blob under
		// include=deletedwithversions.
		return (inc["versions"] && (!deleted || inc["deleted"])) || (inc["deletedwithversions"] && !deleted)
	}
	return false
}

// flush emits the held base records of the name just scanned.
func (ss *stateScan) flush() {
	if ss.deleted != nil {
		ss.add(blobItem{name: ss.name, rec: ss.deleted, elem: blobdata.ElemDeleted, ord: ordDeleted})
	}
	switch {
	case ss.base != nil:
		ss.add(blobItem{name: ss.name, rec: ss.base, elem: blobdata.ElemBase, ord: ordBase})
	case ss.latestVersion != nil && ss.p.include["deletedwithversions"]:
		ss.add(blobItem{name: ss.name, rec: ss.latestVersion, elem: ss.latestVersionElem, ord: ordBase, versionsOnly: true})
	}
	ss.base, ss.deleted, ss.latestVersion = nil, nil, nil
}

// add appends an item unless the previous page already showed it.
func (ss *stateScan) add(it blobItem) {
	if ss.full() {
		return
	}
	if it.name < ss.resumeName || (it.name == ss.resumeName && it.ord < ss.resumeOrd) {
		return
	}
	ss.items = append(ss.items, it)
}

// writeItemIdentity writes the elements of a listed blob that say which
// state it is: Deleted, Snapshot, VersionId, IsCurrentVersion and
// HasVersionsOnly.
func writeItemIdentity(x *xmlWriter, it blobItem, p listParams, now time.Time) {
	switch {
	case it.ord == "":
		return
	case it.versionsOnly:
		x.Elem("Deleted", "true")
		x.Elem("HasVersionsOnly", "true")
		return
	}
	deleted, _ := it.rec.SoftDeleted(now)
	if deleted || it.elem == blobdata.ElemDeleted {
		x.Elem("Deleted", "true")
	}
	if strings.HasPrefix(it.elem, blobdata.SnapshotPrefix) {
		x.Elem("Snapshot", it.elem[1:])
	}
	if !p.include["versions"] {
		return
	}
	switch {
	case strings.HasPrefix(it.elem, blobdata.VersionPrefix):
		x.Elem("VersionId", it.elem[1:])
	case it.elem == blobdata.ElemBase && it.rec.VersionID != "":
		x.Elem("VersionId", it.rec.VersionID)
		x.Elem("IsCurrentVersion", "true")
	}
}

// writeTierElements writes AccessTier, AccessTierInferred, ArchiveStatus,
// RehydratePriority and AccessTierChangeTime.
func writeTierElements(x *xmlWriter, b *blobdata.Blob, now time.Time) {
	tier, inferred, archiveStatus := b.TierAt(now)
	x.Elem("AccessTier", tier)
	if inferred {
		x.Elem("AccessTierInferred", "true")
	}
	if archiveStatus != "" {
		x.Elem("ArchiveStatus", archiveStatus)
		x.Elem("RehydratePriority", b.Rehydrate.Priority)
	}
	if changed := b.TierChangedAt(now); !changed.IsZero() {
		x.Elem("AccessTierChangeTime", httpTime(changed))
	}
}

// writeCopyElements writes the copy properties (include=copy).
func writeCopyElements(x *xmlWriter, b *blobdata.Blob, now time.Time) {
	c := b.Copy
	if c == nil {
		return
	}
	status, ended := c.Status(now)
	x.Elem("CopyId", c.ID)
	x.Elem("CopyStatus", status)
	x.Elem("CopySource", c.Source)
	x.Elem("CopyProgress", c.Progress(now))
	if !ended.IsZero() {
		x.Elem("CopyCompletionTime", httpTime(ended))
	}
	if status == blobdata.CopyAborted {
		x.Elem("CopyStatusDescription", abortedDescription)
	}
	if c.Incremental {
		x.Elem("IncrementalCopy", "true")
		x.Elem("DestinationSnapshot", c.DestSnapshot)
	}
}

// writeDeletedElements writes DeletedTime and RemainingRetentionDays of a
// soft-deleted state.
func writeDeletedElements(x *xmlWriter, it blobItem, now time.Time) {
	deleted, _ := it.rec.SoftDeleted(now)
	if !deleted {
		return
	}
	x.Elem("DeletedTime", httpTime(it.rec.DeletedAt))
	days := math.Ceil(it.rec.Purge.Sub(now).Hours() / 24)
	x.Int("RemainingRetentionDays", int64(max(days, 1)))
}
