package file

import (
	"fmt"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/keymove"
)

// stagLife is the share record field of its life cycle beyond creation:
// soft delete, a move of its records, a deletion in progress. Its tag
// leaves room below for properties.
const stagLife = 32

// shareLife is the soft delete and move state of a share record
// (share_softdelete.go, share_delete.go).
type shareLife struct {
	// DeletedAt is when a soft-deleted share was deleted (zero for a live
	// one); Purge when its retention ends; Version the deleted version
	// that Undelete Share names.
	DeletedAt, Purge time.Time
	Version          string
	// MoveTo is set on a share whose records are moving to another key
	// name, MoveFrom on the record that receives them; both hide the share
	// until the move ends.
	MoveTo, MoveFrom string
	// Deleting marks a share whose records are being removed.
	Deleting bool
}

// hidden reports whether requests see the share as absent: being deleted,
// soft-deleted, or in a move.
func (l *shareLife) hidden() bool {
	return l.Deleting || !l.DeletedAt.IsZero() || l.MoveTo != "" || l.MoveFrom != ""
}

// beingDeleted reports whether the share's name is held by a deletion in
// progress: Create Share answers 409 ShareBeingDeleted meanwhile.
func (l *shareLife) beingDeleted() bool {
	return l.Deleting || (l.MoveTo != "" && keymove.IsTombstone(l.MoveTo))
}

// expiredAt reports whether a deleted share's retention has ended.
func (l *shareLife) expiredAt(now time.Time) bool {
	return !l.DeletedAt.IsZero() && !now.Before(l.Purge)
}

func (l *shareLife) encode(e *record.Encoder) {
	if *l == (shareLife{}) {
		return
	}
	e.Field(stagLife, func(e *record.Encoder) {
		e.Time(l.DeletedAt)
		e.Time(l.Purge)
		e.Str(l.Version)
		e.Str(l.MoveTo)
		e.Str(l.MoveFrom)
		e.Bool(l.Deleting)
	})
}

func (l *shareLife) decode(p *record.Decoder) {
	l.DeletedAt, l.Purge, l.Version = p.Time(), p.Time(), p.Str()
	l.MoveTo, l.MoveFrom, l.Deleting = p.Str(), p.Str(), p.Bool()
}

// deletedVersion names the deleted version of a share deleted at t: the
// instant as a Windows file time in 16 hex digits, the form the service
// gives (azfile's recorded TestServiceCreateDeleteRestoreShare lists
// 01D9B4BA75B2F410 for a share deleted at 2023-07-12T12:14:51Z).
func deletedVersion(t time.Time) string {
	const unixToFileTime = 116444736000000000 // 100 ns ticks from 1601 to 1970
	return fmt.Sprintf("%016X", uint64(t.UnixNano()/100)+unixToFileTime)
}

// remainingDays is the RemainingRetentionDays of a deleted share: the
// calendar days (UTC) from now to the end of its retention. The recorded
// listing above shows 1 for a share deleted a minute earlier and 0 for one
// deleted the previous day, with a one-day retention.
func remainingDays(purge, now time.Time) int64 {
	day := func(t time.Time) time.Time {
		y, m, d := t.UTC().Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	return int64(day(purge).Sub(day(now)) / (24 * time.Hour))
}

// shareSpans are the key spans a share's records lie in, under key name
// from, moved under key name to (deleted when to is ""): its directories
// and files, its ranges and permissions, and its snapshot records. The
// share's own record is not among them: the move's last Update handles it.
func shareSpans(account, from, to string) []keymove.Span {
	spaces := []store.Space{store.SpaceFile, store.SpaceFileIndex}
	spans := make([]keymove.Span, 0, len(spaces)+1)
	prefix := func(space store.Space, name string) []byte {
		if name == "" {
			return nil
		}
		return store.NewKey(space).Str(account).Str(name)
	}
	for _, sp := range spaces {
		spans = append(spans, keymove.Prefix(prefix(sp, from), prefix(sp, to)))
	}
	// Snapshot records sort after the live record (snap "").
	return append(spans, keymove.Span{Start: store.PrefixEnd(shareKey(account, from, "")),
		End: store.PrefixEnd(sharePrefix(account, from)), From: sharePrefix(account, from), To: prefix(store.SpaceShare, to)})
}

// purgeKey is the entry of store.SpaceShareExpiry that schedules the purge
// of a deleted share at the end of its retention.
func purgeKey(at time.Time, account, tombstone string) []byte {
	return store.NewKey(store.SpaceShareExpiry).Uint(uint64(at.UnixNano())).Str(account).Str(tombstone)
}
