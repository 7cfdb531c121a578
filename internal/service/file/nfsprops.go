package file

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// NFS properties of files and directories on NFS shares (nfs.go): the
// owner (x-ms-owner, a UID) and group (x-ms-group, a GID), 0 (root) by
// default, the mode (x-ms-mode, octal such as 0644 or symbolic such as
// rw-r--r--, answered in octal), and the file type, Regular or Directory
// (x-ms-file-file-type; Create File takes only Regular). A node is on an
// NFS share when its parent is: the share's root carries the properties
// from Create Share on. Nodes of SMB shares have none, and refuse the
// headers (400 InvalidHeaderValue).

// ntagNFS is the node record field of the NFS properties (tags 8-29 are
// left to other node state; 31 holds a symbolic link's text, 32 and 33
// the records of hard links).
const ntagNFS = 30

// Default modes of new files and directories (rw-rw-r--, rwxr-xr-x: a
// Create Directory without x-ms-mode answers 0755 in the recorded
// Azure/azure-sdk-assets go/sdk/storage/azfile/testdata/recordings/Test/
// TestDirSetPropertiesNfs.json and TestCreateHardLinkNFS.json), and the
// mode of every symbolic link (rwxrwxrwx, as symlink(2) makes them; Create
// Symbolic Link takes no x-ms-mode and answers 0777 in the recorded
// TestCreateSymbolicLinkNFS.json).
const (
	defaultFileMode = 0o664
	defaultDirMode  = 0o755
	symlinkMode     = 0o777
)

// nfsProps are a node's NFS properties.
type nfsProps struct {
	Owner, Group string
	Mode         uint16
	// LinkText is the target of a symbolic link ("" for a regular file or
	// a directory; nfs_symlink.go), stored in a field of its own.
	LinkText string
}

// makeSymlink turns the properties of a new file into those of a symbolic
// link to text.
func (p *nfsProps) makeSymlink(text string) {
	p.LinkText = text
	p.Mode = symlinkMode
}

// shownMode is the mode a node answers: a symbolic link's is 0777 whatever
// its record holds, which for a link made by an older build is the mode of
// a new file or the x-ms-mode it was created with.
func (p *nfsProps) shownMode() uint16 {
	if p.LinkText != "" {
		return symlinkMode
	}
	return p.Mode
}

func (p *nfsProps) encode(e *record.Encoder) {
	e.Str(p.Owner)
	e.Str(p.Group)
	e.Uvarint(uint64(p.Mode))
}

func decodeNFS(d *record.Decoder) *nfsProps {
	return &nfsProps{Owner: d.Str(), Group: d.Str(), Mode: uint16(d.Uvarint())}
}

// nfsRequest is the NFS headers of a create or set; nil fields were not
// sent.
type nfsRequest struct {
	owner, group *string
	mode         *uint16
	fileType     string
}

func (q nfsRequest) empty() bool {
	return q.owner == nil && q.group == nil && q.mode == nil && q.fileType == ""
}

// parseNFSRequest reads x-ms-owner, x-ms-group, x-ms-mode and
// x-ms-file-file-type.
func parseNFSRequest(h http.Header) (nfsRequest, error) {
	var q nfsRequest
	for _, id := range []struct {
		name string
		dst  **string
	}{{"x-ms-owner", &q.owner}, {"x-ms-group", &q.group}} {
		raw := h.Get(id.name)
		if raw == "" {
			continue
		}
		if _, err := strconv.ParseUint(raw, 10, 32); err != nil {
			return q, azerr.InvalidHeader(id.name, raw)
		}
		v := raw
		*id.dst = &v
	}
	if raw := h.Get("x-ms-mode"); raw != "" {
		mode, ok := parseMode(raw)
		if !ok {
			return q, azerr.InvalidHeader("x-ms-mode", raw)
		}
		q.mode = &mode
	}
	if raw := h.Get("x-ms-file-file-type"); raw != "" {
		if !strings.EqualFold(raw, "Regular") {
			return q, azerr.InvalidHeader("x-ms-file-file-type", raw)
		}
		q.fileType = "Regular"
	}
	return q, nil
}

// parseMode reads a mode in octal (four digits) or symbolic (nine
// characters, with s, S, t and T for setuid, setgid and sticky) notation.
func parseMode(raw string) (uint16, bool) {
	if len(raw) == 4 {
		v, err := strconv.ParseUint(raw, 8, 16)
		return uint16(v), err == nil
	}
	if len(raw) != 9 {
		return 0, false
	}
	var mode uint16
	special := [3]uint16{0o4000, 0o2000, 0o1000}
	specialLetter := [3]byte{'s', 's', 't'}
	for i := 0; i < 3; i++ {
		shift := uint(6 - 3*i)
		r, w, x := raw[3*i], raw[3*i+1], raw[3*i+2]
		switch {
		case r == 'r':
			mode |= 4 << shift
		case r != '-':
			return 0, false
		}
		switch {
		case w == 'w':
			mode |= 2 << shift
		case w != '-':
			return 0, false
		}
		switch {
		case x == 'x':
			mode |= 1 << shift
		case x == specialLetter[i]:
			mode |= 1<<shift | special[i]
		case x == specialLetter[i]-'a'+'A':
			mode |= special[i]
		case x != '-':
			return 0, false
		}
	}
	return mode, true
}

// create gives a new node on an NFS share (its parent has NFS properties)
// its NFS properties, and refuses NFS headers elsewhere.
func (q nfsRequest) create(n, parent *node) error {
	if parent.NFS == nil {
		return q.refuseOnSMB()
	}
	if q.fileType != "" && n.Dir {
		return azerr.InvalidHeader("x-ms-file-file-type", q.fileType)
	}
	p := &nfsProps{Owner: "0", Group: "0", Mode: defaultFileMode}
	if n.Dir {
		p.Mode = defaultDirMode
	}
	n.NFS = p
	q.apply(p)
	return nil
}

// set changes the NFS properties of a node on an NFS share.
func (q nfsRequest) set(n *node) error {
	if n.NFS == nil {
		return q.refuseOnSMB()
	}
	if q.fileType != "" {
		return azerr.InvalidHeader("x-ms-file-file-type", q.fileType)
	}
	q.apply(n.NFS)
	return nil
}

func (q nfsRequest) apply(p *nfsProps) {
	if q.owner != nil {
		p.Owner = *q.owner
	}
	if q.group != nil {
		p.Group = *q.group
	}
	if q.mode != nil {
		p.Mode = *q.mode
	}
}

// refuseOnSMB is the answer to NFS headers on a node of an SMB share.
func (q nfsRequest) refuseOnSMB() error {
	if q.empty() {
		return nil
	}
	return azerr.Newf(azerr.InvalidHeaderValue, "NFS properties apply to files and directories of NFS shares only.")
}

// nfsHeaders are the NFS properties an answer carries.
type nfsHeaders uint8

const (
	nfsOwnership nfsHeaders = 1 << iota // x-ms-owner, x-ms-group, x-ms-mode
	nfsFileType                         // x-ms-file-file-type
	nfsLinkCount                        // x-ms-link-count, of a file only
)

// The NFS properties each operation answers, as the service's recorded
// answers carry them (x-ms-version 2025-05-05, Azure/azure-sdk-assets
// go/sdk/storage/azfile/testdata/recordings/Test/). A directory answers no
// link count (TestDirCreateNfs.json, TestDirSetPropertiesNfs.json).
const (
	// Create File, Create Directory and Create Symbolic Link answer no link
	// count (TestCreateFileNFS, TestDirCreateNfs, TestCreateSymbolicLinkNFS).
	nfsOnCreate = nfsOwnership | nfsFileType
	// Set File Properties and Set Directory Properties answer no file type
	// (TestFileSetHTTPHeadersNfs, TestDirSetPropertiesNfs).
	nfsOnSet = nfsOwnership | nfsLinkCount
	// Get File Properties, Get Directory Properties and Create Hard Link
	// answer all (TestFileSetHTTPHeadersNfs, TestDirCreateNfs,
	// TestCreateHardLinkNFS).
	nfsOnRead = nfsOwnership | nfsFileType | nfsLinkCount
	// Get File answers no file type (azure-sdk-for-python test_nfs.py's
	// recorded test_download_and_copy_file, x-ms-version 2026-02-06).
	nfsOnDownload = nfsOwnership | nfsLinkCount
	// Rename File and Rename Directory answer none (no NFS header in their
	// answers in azure-rest-api-specs Microsoft.FileStorage file.json).
	nfsNone nfsHeaders = 0
)

// setNFSHeaders writes the NFS properties of a node of an NFS share that
// the answer carries.
func setNFSHeaders(h http.Header, n *node, carried nfsHeaders) {
	if n.NFS == nil {
		return
	}
	if carried&nfsOwnership != 0 {
		h.Set("X-Ms-Owner", n.NFS.Owner)
		h.Set("X-Ms-Group", n.NFS.Group)
		h.Set("X-Ms-Mode", fmt.Sprintf("%04o", n.NFS.shownMode()))
	}
	if carried&nfsFileType != 0 {
		fileType := "Regular"
		switch {
		case n.Dir:
			fileType = "Directory"
		case n.NFS.LinkText != "":
			fileType = "SymLink"
		}
		h.Set("X-Ms-File-File-Type", fileType)
	}
	if carried&nfsLinkCount != 0 && !n.Dir {
		h.Set("X-Ms-Link-Count", strconv.FormatUint(uint64(linkCount(n)), 10))
	}
}
