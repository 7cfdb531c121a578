package file

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

func (s *Service) createDirectory(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	smb, err := parseSMBRequest(r.Header, true)
	if err != nil {
		return err
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	now := s.now()
	var n *node
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if t.Path.isRoot() {
			if _, err := shareFor(tx, t); err != nil {
				return err
			}
			return azerr.New(azerr.ResourceAlreadyExists)
		}
		parent, err := parentFor(tx, t)
		if err != nil {
			return err
		}
		if _, exists, err := loadNode(tx, t.Account, t.Share, "", t.Path); err != nil {
			return err
		} else if exists {
			return azerr.New(azerr.ResourceAlreadyExists)
		}
		n = &node{Dir: true, Name: t.Path.name(), ID: newFileID(), ParentID: parent.ID,
			ETag: etag.Next(now, 0), Metadata: meta}
		if err := smb.create(tx, t, n, parent, now); err != nil {
			return err
		}
		return saveNode(tx, t.Account, t.Share, "", t.Path, n)
	})
	if err != nil {
		return err
	}
	writeNodeWrite(w, n, http.StatusCreated, nfsOnCreate)
	return nil
}

// writeMetadataSet answers Set Directory Metadata and Set File Metadata.
func writeMetadataSet(w http.ResponseWriter, n *node) {
	h := w.Header()
	setETag(h, n.ETag)
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	w.WriteHeader(http.StatusOK)
}

// writeNodeWrite answers a create or set of a directory or file with its
// ETag, SMB properties and the NFS properties the operation answers.
func writeNodeWrite(w http.ResponseWriter, n *node, status int, nfs nfsHeaders) {
	h := w.Header()
	setETag(h, n.ETag)
	setSMBHeaders(h, n, nfs)
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	w.WriteHeader(status)
}

func (s *Service) getDirectoryProperties(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	var n *node
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		n, err = dirFor(tx, t, false)
		return err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setETag(h, n.ETag)
	n.Metadata.WriteHeaders(h)
	setSMBHeaders(h, n, nfsOnRead)
	h.Set("X-Ms-Server-Encrypted", "true")
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Service) deleteDirectory(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		n, err := dirFor(tx, t, true)
		if err != nil {
			return err
		}
		if t.Path.isRoot() {
			return azerr.Newf(azerr.CannotDeleteFileOrDirectory, "The root directory of a share cannot be deleted.")
		}
		if err := smbstate.Check(smbstate.DeleteDirectory, n.Opens); err != nil {
			return err
		}
		children := childrenPrefix(t.Account, t.Share, "", t.Path.key())
		empty := true
		err = tx.Scan(children, store.PrefixEnd(children), store.ScanOptions{Limit: 1}, func(_, _ []byte) bool {
			empty = false
			return false
		})
		if err != nil {
			return err
		}
		if !empty {
			return azerr.New(azerr.DirectoryNotEmpty)
		}
		return tx.Delete(nodeKeyOf(t.Account, t.Share, "", t.Path))
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (s *Service) setDirectoryProperties(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	smb, err := parseSMBRequest(r.Header, true)
	if err != nil {
		return err
	}
	now := s.now()
	n, err := s.updateNode(r, t, true, func(tx store.Tx, n *node) error {
		return smb.set(tx, t, n, now)
	})
	if err != nil {
		return err
	}
	writeNodeWrite(w, n, http.StatusOK, nfsOnSet)
	return nil
}

// create applies the SMB headers of Create Directory or Create File to the
// new node n: the times and attributes asked for (now and the kind's
// defaults otherwise), and a permission that defaults to parent's.
func (req smbRequest) create(tx store.Tx, t *target, n, parent *node, now time.Time) error {
	if err := req.nfs.create(n, parent); err != nil {
		return err
	}
	req.apply(&n.SMB, n.Dir, true, now)
	var err error
	n.SMB.PermKey, err = req.perm.onCreate(tx, t.Account, t.Share, parent.SMB.PermKey, n.Dir)
	return err
}

// set applies the SMB headers of Set Directory Properties or Set File
// Properties to n: the times and attributes asked for, and a permission
// resolved against the one n inherits.
func (req smbRequest) set(tx store.Tx, t *target, n *node, now time.Time) error {
	if err := req.nfs.set(n); err != nil {
		return err
	}
	parentKey, err := parentPermKey(tx, t, n)
	if err != nil {
		return err
	}
	req.apply(&n.SMB, n.Dir, false, now)
	n.SMB.PermKey, err = req.perm.onSet(tx, t.Account, t.Share, n.SMB.PermKey, parentKey)
	return err
}

// parentPermKey is the permission key an entry inherits: its parent's, or
// its own for the root.
func parentPermKey(tx store.Tx, t *target, n *node) (string, error) {
	if t.Path.isRoot() {
		return n.SMB.PermKey, nil
	}
	parent, found, err := loadNode(tx, t.Account, t.Share, "", t.Path.parent())
	if err != nil || !found {
		return n.SMB.PermKey, err
	}
	return parent.SMB.PermKey, nil
}

func (s *Service) setDirectoryMetadata(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	n, err := s.updateNode(r, t, true, func(_ store.Tx, n *node) error {
		n.Metadata = meta
		return nil
	})
	if err != nil {
		return err
	}
	writeMetadataSet(w, n)
	return nil
}

// updateNode loads the live directory (dir) or file at t, lets change
// modify it and stores it with a new ETag.
func (s *Service) updateNode(r *http.Request, t *target, dir bool, change func(store.Tx, *node) error) (*node, error) {
	now := s.now()
	var n *node
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		if dir {
			n, err = dirFor(tx, t, true)
		} else {
			n, err = fileFor(tx, t, true)
		}
		if err != nil {
			return err
		}
		if err := change(tx, n); err != nil {
			return err
		}
		n.ETag = etag.Next(now, n.ETag)
		return saveNode(tx, t.Account, t.Share, "", t.Path, n)
	})
	return n, err
}
