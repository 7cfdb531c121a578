package file

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// listInclude is what List Directories and Files adds to each entry.
type listInclude struct {
	timestamps, etag, attributes, permissionKey bool
	// extended adds the directory's id (x-ms-file-extended-info, implied
	// by include).
	extended bool
}

func parseListInclude(r *http.Request) (listInclude, error) {
	var inc listInclude
	raw := r.URL.Query().Get("include")
	if raw != "" {
		inc.extended = true
		for _, part := range strings.Split(raw, ",") {
			switch strings.ToLower(strings.TrimSpace(part)) {
			case "timestamps":
				inc.timestamps = true
			case "etag":
				inc.etag = true
			case "attributes":
				inc.attributes = true
			case "permissionkey":
				inc.permissionKey = true
			default:
				return inc, azerr.InvalidQuery("include", raw, "")
			}
		}
	}
	ext, err := boolHeader(r.Header, "x-ms-file-extended-info")
	inc.extended = inc.extended || ext
	return inc, err
}

func (s *Service) listDirectory(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	q := r.URL.Query()
	prefix, marker := q.Get("prefix"), q.Get("marker")
	inc, err := parseListInclude(r)
	if err != nil {
		return err
	}
	max, err := parseMaxResults(r)
	if err != nil {
		return err
	}
	dirKey := t.Path.key()
	start := namePrefix(t.Account, t.Share, t.Snapshot, dirKey, fold(prefix))
	end := store.PrefixEnd(start)
	if marker != "" {
		raw, err := base64.RawURLEncoding.DecodeString(marker)
		if err != nil {
			return azerr.InvalidQuery("marker", marker, "The marker is not valid.")
		}
		if k := nodeKey(t.Account, t.Share, t.Snapshot, dirKey, string(raw)); string(k) > string(start) {
			start = k
		}
	}
	var dir *node
	var page []*node
	next := ""
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if dir, err = dirFor(tx, t, false); err != nil {
			return err
		}
		alive, err := t.live.Snapshot(tx)
		if err != nil {
			return err
		}
		var decodeErr error
		err = tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
			_, folded, err := nodeKeyParts(k)
			if err != nil || folded == "" {
				return true // the root's own record sits among its children
			}
			if len(page) == max {
				next = base64.RawURLEncoding.EncodeToString([]byte(folded))
				return false
			}
			n, err := decodeNode(v)
			if err == nil {
				err = forgetOpensOf(n, alive)
			}
			if err != nil {
				decodeErr = err
				return false
			}
			if !n.DeletePending {
				page = append(page, n)
			}
			return true
		})
		if err == nil {
			err = decodeErr
		}
		if err != nil {
			return err
		}
		// A hard-linked file's name records get its state only now, so one
		// an SMB client is deleting leaves a page a little short.
		if err := resolveLinks(tx, t.Account, t.Share, t.Snapshot, page); err != nil {
			return err
		}
		kept := page[:0]
		for _, n := range page {
			if err := forgetOpensOf(n, alive); err != nil {
				return err
			}
			if !n.DeletePending {
				kept = append(kept, n)
			}
		}
		page = kept
		return nil
	})
	if err != nil {
		return err
	}
	writeDirectoryList(w, r, t, dir, page, inc, prefix, marker, q.Get("maxresults"), next)
	return nil
}

func writeDirectoryList(w http.ResponseWriter, r *http.Request, t *target, dir *node, page []*node, inc listInclude,
	prefix, marker, maxRaw, next string) {
	x := newXML()
	attrs := []string{"ServiceEndpoint", serviceEndpoint(r), "ShareName", t.Share}
	if t.Snapshot != "" {
		attrs = append(attrs, "ShareSnapshot", t.Snapshot)
	}
	attrs = append(attrs, "DirectoryPath", t.Path.String())
	x.Open("EnumerationResults", attrs...)
	if marker != "" {
		x.Elem("Marker", marker)
	}
	x.EncodedElem("Prefix", prefix)
	if maxRaw != "" {
		x.Elem("MaxResults", maxRaw)
	}
	if inc.extended {
		x.Elem("DirectoryId", strconv.FormatUint(dir.ID, 10))
	}
	x.Open("Entries")
	for _, n := range page {
		writeEntry(x, n, inc)
	}
	x.Close("Entries")
	if next != "" {
		x.Elem("NextMarker", next)
	} else {
		x.Empty("NextMarker")
	}
	x.Close("EnumerationResults")
	x.Send(w, http.StatusOK)
}

func writeEntry(x *xmlWriter, n *node, inc listInclude) {
	kind := "File"
	if n.Dir {
		kind = "Directory"
	}
	x.Open(kind)
	// Names XML cannot carry are listed percent-encoded (the SDK's
	// recorded TestListFileDirEncoded* list U+FFFE and U+FFFF names).
	x.EncodedElem("Name", n.Name)
	// Every entry carries its FileId, asked for or not (the SDK's recorded
	// TestDirListFilesAndDirsDefault reads the ID of a default listing).
	x.Elem("FileId", strconv.FormatUint(n.ID, 10))
	x.Open("Properties")
	if !n.Dir {
		x.Elem("Content-Length", strconv.FormatInt(n.Size, 10))
	}
	if inc.timestamps {
		x.Elem("CreationTime", formatTime(n.SMB.Created))
		x.Elem("LastAccessTime", formatTime(n.SMB.Written))
		x.Elem("LastWriteTime", formatTime(n.SMB.Written))
		x.Elem("ChangeTime", formatTime(n.SMB.Changed))
		x.Elem("Last-Modified", n.LastModified().Format(http.TimeFormat))
	}
	if inc.etag {
		x.Elem("Etag", n.ETag.String())
	}
	x.Close("Properties")
	// include's Attributes and PermissionKey are for SMB shares (the REST
	// reference's List Directories and Files, "SMB only URI parameters").
	if inc.attributes && n.showsSMB() {
		x.Elem("Attributes", n.SMB.Attrs.String())
	}
	if inc.permissionKey && n.showsSMB() {
		x.Elem("PermissionKey", n.SMB.PermKey)
	}
	x.Close(kind)
}
