package file

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// Symbolic links of NFS shares. Create Symbolic Link (PUT
// ?restype=symboliclink with x-ms-link-text) makes an entry of NFS file
// type SymLink whose content is the link text, with the NFS owner and
// group, metadata and times the request gives and mode 0777; Get Symbolic
// Link (GET ?restype=symboliclink) answers the text, percent-encoded, in
// x-ms-link-text (the SDK's recorded TestCreateSymbolicLinkNFS,
// ...WithOptions and TestGetSymbolicLinkNFS). The text is not resolved:
// an NFS client follows it. A link lives on NFS shares only (400
// elsewhere), where its name is free (409 ResourceAlreadyExists); Get
// Symbolic Link of another kind of file is 409 ResourceTypeMismatch.

// ntagSymlink is the node field of a symbolic link's text.
const ntagSymlink = 31

func (s *Service) createSymbolicLink(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	text := r.Header.Get("X-Ms-Link-Text")
	if text == "" {
		return azerr.MissingHeader("x-ms-link-text")
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	smb, err := parseSMBRequest(r.Header, false)
	if err != nil {
		return err
	}
	now := s.now()
	var n *node
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		parent, err := parentFor(tx, t)
		if err != nil {
			return err
		}
		if err := nfsOnly(parent, "Symbolic links", "x-ms-link-text"); err != nil {
			return err
		}
		if _, found, err := loadNode(tx, t.Account, t.Share, "", t.Path); err != nil {
			return err
		} else if found {
			return azerr.New(azerr.ResourceAlreadyExists)
		}
		n = &node{Name: t.Path.name(), ID: newFileID(), ParentID: parent.ID, Size: int64(len(text)), Metadata: meta}
		n.ETag = etag.Next(now, 0)
		if err := smb.create(tx, t, n, parent, now); err != nil {
			return err
		}
		n.NFS.makeSymlink(text)
		return saveNode(tx, t.Account, t.Share, "", t.Path, n)
	})
	if err != nil {
		return err
	}
	writeLinkCreated(w, n, nfsOnCreate)
	return nil
}

// writeLinkCreated answers Create Symbolic Link and Create Hard Link with
// the headers the service answers (TestCreateSymbolicLinkNFS.json,
// TestCreateHardLinkNFS.json): the new name's ETag, times, ids and the NFS
// properties the operation answers, and x-ms-request-server-encrypted
// false, the operation writing no file content the service encrypts.
func writeLinkCreated(w http.ResponseWriter, n *node, nfs nfsHeaders) {
	h := w.Header()
	setETag(h, n.ETag)
	setSMBHeaders(h, n, nfs)
	h.Set("X-Ms-Request-Server-Encrypted", "false")
	w.WriteHeader(http.StatusCreated)
}

func (s *Service) getSymbolicLink(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	var n *node
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		n, err = fileFor(tx, t, false)
		return err
	})
	if err != nil {
		return err
	}
	if n.NFS == nil || n.NFS.LinkText == "" {
		return azerr.New(azerr.ResourceTypeMismatch)
	}
	h := w.Header()
	setETag(h, n.ETag)
	h.Set("X-Ms-Link-Text", escapeLinkText(n.NFS.LinkText))
	w.WriteHeader(http.StatusOK)
	return nil
}

// escapeLinkText percent-encodes a link's text as RFC 3986 section 2.1
// has it: every byte but the unreserved letters, digits and -._~, with
// upper-case hex digits (%2F for a slash in TestGetSymbolicLinkNFS.json),
// and a space as %20, which a client's percent-decoder turns back into a
// space where it would leave a + as it is.
func escapeLinkText(text string) string {
	return strings.ReplaceAll(url.QueryEscape(text), "+", "%20")
}
