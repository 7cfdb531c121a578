package blob

import (
	"bytes"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// scanWithVersions is scanTagIndex for include=versions: the previous
// versions first, then the current blobs, up to max matches in all.
func scanWithVersions(tx store.Tx, account, container string, a findArgs, now time.Time) ([]foundBlob, []byte, error) {
	versions := planTagScan(account, container, a.where.expr, true)
	current := planTagScan(account, container, a.where.expr, false)
	if a.marker != nil && !versions.holds(a.marker) {
		found, next, err := scanTagRange(tx, current, a.marker, a.max, a.where.expr)
		if err == nil {
			found, err = currentVersions(tx, account, found, now)
		}
		return found, next, err
	}
	found, next, err := scanTagRange(tx, versions, a.marker, a.max, a.where.expr)
	if err == nil {
		found, err = liveVersions(tx, account, found, a.where.expr, now)
	}
	if err != nil || next != nil {
		return found, next, err
	}
	more, next, err := scanTagRange(tx, current, nil, a.max-len(found), a.where.expr)
	if err == nil {
		more, err = currentVersions(tx, account, more, now)
	}
	return append(found, more...), next, err
}

// holds reports whether key lies in the range.
func (r tagRange) holds(key []byte) bool {
	return bytes.Compare(key, r.start) >= 0 && bytes.Compare(key, r.end) < 0
}

// liveVersions keeps the matches of a version index scan whose version
// still exists, not soft-deleted, with tags that match: an entry may be
// stale, and the version's own tags decide.
func liveVersions(tx store.Tx, account string, found []foundBlob, e *tagExpr, now time.Time) ([]foundBlob, error) {
	live := found[:0]
	for _, f := range found {
		b, err := blobdata.LoadRecord(tx, blobdata.RecordKey(account, f.container, f.name, blobdata.VersionPrefix+f.versionID))
		if err != nil {
			return nil, err
		}
		if b == nil || !b.Committed || !e.match(b.Tags, f.container) {
			continue
		}
		if deleted, _ := b.SoftDeleted(now); deleted {
			continue
		}
		f.tags = b.Tags
		live = append(live, f)
	}
	return live, nil
}

// currentVersions gives the matches of a base index scan their version ID
// (none for a blob written while versioning was off), dropping expired
// blobs.
func currentVersions(tx store.Tx, account string, found []foundBlob, now time.Time) ([]foundBlob, error) {
	live := found[:0]
	for _, f := range found {
		b, err := blobdata.LoadLiveBlob(tx, account, f.container, f.name, now)
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		f.versionID, f.current = b.VersionID, b.VersionID != ""
		live = append(live, f)
	}
	return live, nil
}
