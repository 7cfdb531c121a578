package file

import (
	"bytes"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// maxSnapshots is how many snapshots one share may have.
const maxSnapshots = 200

// A share snapshot is a read-only copy of the share's records under the
// snapshot's instant: the share record, every directory and file record and
// every range record (each taking its own extent reference). No byte is
// copied, so a snapshot costs metadata only; reads address it with
// ?sharesnapshot=.

func (s *Service) snapshotShare(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r) // never a snapshot: parseTarget ignores sharesnapshot here
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	now := s.now()
	var snap string
	var sh *shareRecord
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		if sh, err = shareFor(tx, t); err != nil {
			return err
		}
		snaps, err := snapshotsOf(tx, t.Account, t.Share)
		if err != nil {
			return err
		}
		if len(snaps) >= maxSnapshots {
			return azerr.New(azerr.ShareSnapshotCountExceeded)
		}
		if snap, err = freeSnapshotName(tx, t, now); err != nil {
			return err
		}
		snapRec := *sh
		snapRec.Lease = lease.Lease{}
		snapRec.Created = now
		if len(meta) > 0 {
			snapRec.Metadata = meta
		}
		if err := saveShare(tx, t.Account, t.Share, snap, &snapRec); err != nil {
			return err
		}
		return copyShareContent(tx, t.Account, t.Share, snap)
	})
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	w.Header().Set("X-Ms-Snapshot", snap)
	w.WriteHeader(http.StatusCreated)
	return nil
}

// freeSnapshotName is the snapshot instant for now, moved on by 100 ns
// steps past any snapshot already taken at that instant.
func freeSnapshotName(tx store.Tx, t *target, now time.Time) (string, error) {
	at := now.Truncate(100 * time.Nanosecond)
	for {
		name := at.Format(snapshotLayout)
		if _, exists, err := loadShare(tx, t.Account, t.Share, name); err != nil || !exists {
			return name, err
		}
		at = at.Add(100 * time.Nanosecond)
	}
}

// snapshotsOf lists a share's snapshots with their records.
func snapshotsOf(tx store.Tx, account, share string) (map[string]*shareRecord, error) {
	out := map[string]*shareRecord{}
	prefix := sharePrefix(account, share)
	var decodeErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		r := store.ReadKey(k, store.SpaceShare)
		r.Str()
		r.Str()
		snap := r.Str()
		if r.Err() != nil || snap == "" {
			return true
		}
		sh, err := decodeShare(v)
		if err != nil {
			decodeErr = err
			return false
		}
		out[snap] = sh
		return true
	})
	if err == nil {
		err = decodeErr
	}
	return out, err
}

// copyShareContent copies the live share's directories, files, ranges and
// link records (the state of files with hard links) under snap. Leases,
// open handles and pending deletes stay behind: a snapshot has none.
func copyShareContent(tx store.Tx, account, share, snap string) error {
	type rec struct{ suffix, value []byte }
	collect := func(space store.Space, keep func(suffix []byte) bool) ([]rec, []byte, error) {
		from := snapPrefix(space, account, share, "")
		var recs []rec
		err := tx.Scan(from, store.PrefixEnd(from), store.ScanOptions{}, func(k, v []byte) bool {
			suffix := k[len(from):]
			if keep(suffix) {
				recs = append(recs, rec{bytes.Clone(suffix), bytes.Clone(v)})
			}
			return true
		})
		return recs, snapPrefix(space, account, share, snap), err
	}
	nodes, to, err := collect(store.SpaceFile, func([]byte) bool { return true })
	if err != nil {
		return err
	}
	withoutLiveState := func(to []byte, recs []rec) error {
		for _, n := range recs {
			nd, err := decodeNode(n.value)
			if err != nil {
				return err
			}
			nd.Lease, nd.Opens, nd.DeletePending = lease.Lease{}, nil, false
			if err := tx.Put(append(bytes.Clone(to), n.suffix...), nd.encode()); err != nil {
				return err
			}
		}
		return nil
	}
	if err := withoutLiveState(to, nodes); err != nil {
		return err
	}
	linksMarker := store.NewKey(0).Str(kindLinks)[1:]
	links, to, err := collect(store.SpaceFileIndex, func(suffix []byte) bool { return bytes.HasPrefix(suffix, linksMarker) })
	if err != nil {
		return err
	}
	if err := withoutLiveState(to, links); err != nil {
		return err
	}
	rangesMarker := store.NewKey(0).Str(kindRanges)[1:]
	segs, to, err := collect(store.SpaceFileIndex, func(suffix []byte) bool { return bytes.HasPrefix(suffix, rangesMarker) })
	if err != nil {
		return err
	}
	for _, sg := range segs {
		key := append(bytes.Clone(to), sg.suffix...)
		seg, err := decodeSegment(key, sg.value)
		if err != nil {
			return err
		}
		if err := extent.Ref(tx, seg.Extent); err != nil {
			return err
		}
		if err := tx.Put(key, sg.value); err != nil {
			return err
		}
	}
	return nil
}

// purgeSnapshot deletes a share snapshot, or the live share when snap is
// "", with every record it owns.
func purgeSnapshot(tx store.Tx, account, share, snap string, now time.Time) error {
	if err := store.DeletePrefix(tx, snapPrefix(store.SpaceFile, account, share, snap)); err != nil {
		return err
	}
	if err := purgeIndex(tx, snapPrefix(store.SpaceFileIndex, account, share, snap), now); err != nil {
		return err
	}
	return tx.Delete(shareKey(account, share, snap))
}
