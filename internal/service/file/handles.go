package file

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// handleNode is a file or directory whose open handles a handle operation
// looks at, with its path as stored.
type handleNode struct {
	path string
	key  []byte
	n    *node
}

// handleNodes lists the entries a List/Force Close Handles request covers:
// the file, or the directory with its children (recursive: everything
// below it), in key order. Paths are rebuilt from the stored names.
func handleNodes(tx store.Tx, t *target, recursive bool) ([]handleNode, error) {
	n, found, err := loadNode(tx, t.Account, t.Share, t.Snapshot, t.Path)
	if err != nil {
		return nil, err
	}
	if !found {
		if _, err := shareFor(tx, t); err != nil {
			return nil, err
		}
		return nil, azerr.New(azerr.ResourceNotFound)
	}
	if !n.Dir && recursive {
		return nil, azerr.Newf(azerr.InvalidHeaderValue, "x-ms-recursive applies to directories only.").
			With("HeaderName", "x-ms-recursive").With("HeaderValue", "true")
	}
	self, err := storedPath(tx, t)
	if err != nil {
		return nil, err
	}
	out := []handleNode{{path: self, key: nodeKeyOf(t.Account, t.Share, t.Snapshot, t.Path), n: n}}
	if !n.Dir {
		return out, forgetDeadHandles(tx, t, out)
	}
	dirKey := t.Path.key()
	display := map[string]string{dirKey: self}
	collect := func(prefix []byte) error {
		var decodeErr error
		err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
			parent, name, err := nodeKeyParts(k)
			if err != nil || name == "" {
				return true
			}
			child, err := decodeNode(v)
			if err != nil {
				decodeErr = err
				return false
			}
			path := child.Name
			if p := display[parent]; p != "" {
				path = p + "/" + child.Name
			}
			if parent == "" {
				display[name] = path
			} else {
				display[parent+"/"+name] = path
			}
			out = append(out, handleNode{path: path, key: bytes.Clone(k), n: child})
			return true
		})
		if err != nil {
			return err
		}
		return decodeErr
	}
	switch {
	case recursive && t.Path.isRoot():
		err = collect(snapPrefix(store.SpaceFile, t.Account, t.Share, t.Snapshot))
	case recursive:
		if err = collect(childrenPrefix(t.Account, t.Share, t.Snapshot, dirKey)); err == nil {
			err = collect(descendantsPrefix(t.Account, t.Share, t.Snapshot, dirKey))
		}
	default:
		err = collect(childrenPrefix(t.Account, t.Share, t.Snapshot, dirKey))
	}
	if err != nil {
		return nil, err
	}
	if out, err = resolveHandleLinks(tx, t, out); err != nil {
		return nil, err
	}
	return out, forgetDeadHandles(tx, t, out)
}

// resolveHandleLinks completes the name records of hard-linked files among
// the listed entries. A file's handles belong to the file, so a file with
// several names listed is kept under the first one only.
func resolveHandleLinks(tx store.Tx, t *target, nodes []handleNode) ([]handleNode, error) {
	seen := map[uint64]bool{}
	kept := nodes[:0]
	for _, hn := range nodes {
		if err := resolveLink(tx, t.Account, t.Share, t.Snapshot, hn.n); err != nil {
			return nil, err
		}
		if hn.n.Links > 0 {
			if seen[hn.n.ID] {
				continue
			}
			seen[hn.n.ID] = true
		}
		kept = append(kept, hn)
	}
	return kept, nil
}

// forgetDeadHandles drops the opens of dead nodes from the listed entries.
func forgetDeadHandles(tx store.Tx, t *target, nodes []handleNode) error {
	alive, err := t.live.Snapshot(tx)
	if err != nil {
		return err
	}
	for _, hn := range nodes {
		if err := forgetOpensOf(hn.n, alive); err != nil {
			return err
		}
	}
	return nil
}

// storedPath is the target's path with each name as stored (the request
// may spell them in another case).
func storedPath(tx store.Tx, t *target) (string, error) {
	names := make([]string, len(t.Path.names))
	for i := range names {
		p := filePath{names: t.Path.names[:i+1], folded: t.Path.folded[:i+1]}
		n, found, err := loadNode(tx, t.Account, t.Share, t.Snapshot, p)
		if err != nil {
			return "", err
		}
		names[i] = t.Path.names[i]
		if found {
			names[i] = n.Name
		}
	}
	return strings.Join(names, "/"), nil
}

// handleMarker names the handle a listing resumes at.
func handleMarker(path string, id uint64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(path + "\x00" + strconv.FormatUint(id, 10)))
}

func (s *Service) listHandles(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	recursive, err := boolHeader(r.Header, "x-ms-recursive")
	if err != nil {
		return err
	}
	max, err := parseMaxResults(r)
	if err != nil {
		return err
	}
	marker := r.URL.Query().Get("marker")
	var nodes []handleNode
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		nodes, err = handleNodes(tx, t, recursive)
		return err
	})
	if err != nil {
		return err
	}
	x := newXML()
	x.Open("EnumerationResults")
	x.Open("Entries")
	count, next, started := 0, "", marker == ""
	for _, hn := range nodes {
		for _, o := range sortedOpens(hn.n.Opens) {
			m := handleMarker(hn.path, o.HandleID)
			if !started {
				started = m == marker
				if !started {
					continue
				}
			}
			if count == max {
				next = m
				break
			}
			writeHandle(x, hn, o)
			count++
		}
		if next != "" {
			break
		}
	}
	x.Close("Entries")
	if next != "" {
		x.Elem("NextMarker", next)
	} else {
		x.Empty("NextMarker")
	}
	x.Close("EnumerationResults")
	x.Send(w, http.StatusOK)
	return nil
}

func sortedOpens(opens []smbstate.Open) []smbstate.Open {
	out := slices.Clone(opens)
	slices.SortFunc(out, func(a, b smbstate.Open) int {
		switch {
		case a.HandleID < b.HandleID:
			return -1
		case a.HandleID > b.HandleID:
			return 1
		}
		return 0
	})
	return out
}

func writeHandle(x *xmlWriter, hn handleNode, o smbstate.Open) {
	x.Open("Handle")
	x.Elem("HandleId", strconv.FormatUint(o.HandleID, 10))
	x.Elem("Path", hn.path)
	x.Elem("FileId", strconv.FormatUint(hn.n.ID, 10))
	x.Elem("ParentId", strconv.FormatUint(hn.n.ParentID, 10))
	x.Elem("SessionId", strconv.FormatUint(o.SessionID, 10))
	x.Elem("ClientIp", o.ClientIP)
	x.Elem("ClientName", o.ClientName)
	x.Elem("OpenTime", o.OpenTime.Format(http.TimeFormat))
	if !o.LastReconnectTime.IsZero() {
		x.Elem("LastReconnectTime", o.LastReconnectTime.Format(http.TimeFormat))
	}
	x.Open("AccessRightList")
	for _, right := range o.Rights() {
		x.Elem("AccessRight", right)
	}
	x.Close("AccessRightList")
	x.Close("Handle")
}

func (s *Service) forceCloseHandles(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	raw := strings.TrimSpace(r.Header.Get("X-Ms-Handle-Id"))
	if raw == "" {
		return azerr.MissingHeader("x-ms-handle-id")
	}
	all := raw == "*"
	var id uint64
	if !all {
		var err error
		if id, err = strconv.ParseUint(raw, 10, 64); err != nil {
			return azerr.InvalidHeader("x-ms-handle-id", raw)
		}
	}
	recursive, err := boolHeader(r.Header, "x-ms-recursive")
	if err != nil {
		return err
	}
	now := s.now()
	closed := 0
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		closed = 0
		nodes, err := handleNodes(tx, t, recursive)
		if err != nil {
			return err
		}
		for _, hn := range nodes {
			kept := hn.n.Opens[:0:0]
			for _, o := range hn.n.Opens {
				if all || o.HandleID == id {
					closed++
					continue
				}
				kept = append(kept, o)
			}
			if len(kept) == len(hn.n.Opens) {
				continue
			}
			if err := s.closeOpens(tx, t, hn, kept, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("X-Ms-Number-Of-Handles-Closed", strconv.Itoa(closed))
	h.Set("X-Ms-Number-Of-Handles-Failed", "0")
	w.WriteHeader(http.StatusOK)
	return nil
}

// closeOpens stores an entry's remaining handles. When the last handle of
// an entry an SMB client marked for deletion closes, the entry goes, as on
// an SMB server.
func (s *Service) closeOpens(tx store.Tx, t *target, hn handleNode, kept []smbstate.Open, now time.Time) error {
	n := hn.n
	n.Opens = kept
	if len(kept) > 0 || !n.DeletePending {
		return storeNode(tx, hn.key, t.Account, t.Share, t.Snapshot, n)
	}
	if !n.Dir {
		_, err := unlinkName(tx, t, hn.key, n, now)
		return err
	}
	return tx.Delete(hn.key)
}
