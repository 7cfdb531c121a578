package smb

import (
	"crypto/rand"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/service/file"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// Access mask bits (MS-SMB2 2.2.13.1).
const (
	accReadData        = 0x1
	accWriteData       = 0x2
	accAppendData      = 0x4
	accExecute         = 0x20
	accDelete          = 0x10000
	accMaximumAllowed  = 0x02000000
	accGenericAll      = 0x10000000
	accGenericExecute  = 0x20000000
	accGenericWrite    = 0x40000000
	accGenericRead     = 0x80000000
	accAll             = 0x1F01FF
	optDirectory       = 0x1
	optNonDirectory    = 0x40
	optDeleteOnClose   = 0x1000
	shareRead          = 0x1
	shareWrite         = 0x2
	shareDelete        = 0x4
	attrDirectoryFlag  = 0x10
	attrNormal         = 0x80
	createContextsNone = 0
)

// open is one open handle.
type open struct {
	fileID uint64 // the file's x-ms-file-id
	id     uint64 // persistent and volatile FileId, and the REST handle id
	path   string // share-relative, '/'-separated ("" for the root)
	dir    bool
	access uint32
	doc    bool // delete on close
	// directory enumeration state
	listing []file.Entry
	listPos int
	listed  bool
	// watch is the CHANGE_NOTIFY view of a directory handle.
	watch *watch
}

// mapAccess resolves generic rights (FILE_GENERIC_*) and MAXIMUM_ALLOWED.
func mapAccess(a uint32) uint32 {
	if a&accGenericRead != 0 {
		a |= 0x120089
	}
	if a&accGenericWrite != 0 {
		a |= 0x120116
	}
	if a&accGenericExecute != 0 {
		a |= 0x1200A0
	}
	if a&(accGenericAll|accMaximumAllowed) != 0 {
		a |= accAll
	}
	return a &^ (accGenericRead | accGenericWrite | accGenericExecute | accGenericAll | accMaximumAllowed)
}

// stateAccess is the part of an access mask the share-mode rule uses.
func stateAccess(a uint32) smbstate.Access {
	var s smbstate.Access
	if a&(accReadData|accExecute) != 0 {
		s |= smbstate.Read
	}
	if a&(accWriteData|accAppendData) != 0 {
		s |= smbstate.Write
	}
	if a&accDelete != 0 {
		s |= smbstate.Delete
	}
	return s
}

func stateShare(s uint32) smbstate.ShareMode {
	var m smbstate.ShareMode
	if s&shareRead != 0 {
		m |= smbstate.ShareRead
	}
	if s&shareWrite != 0 {
		m |= smbstate.ShareWrite
	}
	if s&shareDelete != 0 {
		m |= smbstate.ShareDelete
	}
	return m
}

// statusOf maps an SMBFS error to its NTSTATUS.
func statusOf(err error) uint32 {
	switch {
	case err == nil:
		return statusOK
	case errors.Is(err, file.ErrNotFound):
		return statusObjectNameNotFound
	case errors.Is(err, file.ErrPathNotFound):
		return statusObjectPathNotFound
	case errors.Is(err, file.ErrExists):
		return statusObjectNameCollision
	case errors.Is(err, file.ErrIsDirectory):
		return statusFileIsADirectory
	case errors.Is(err, file.ErrNotDirectory):
		return statusNotADirectory
	case errors.Is(err, file.ErrSharing):
		return statusSharingViolation
	case errors.Is(err, file.ErrDeletePending):
		return statusDeletePending
	case errors.Is(err, file.ErrNotEmpty):
		return statusDirectoryNotEmpty
	case errors.Is(err, file.ErrReadOnly), errors.Is(err, file.ErrOpenBelow):
		return statusAccessDenied
	case errors.Is(err, file.ErrCannotDelete):
		return statusCannotDelete
	case errors.Is(err, file.ErrBadName):
		return statusObjectNameInvalid
	case errors.Is(err, file.ErrNoShare):
		return statusNetworkNameDeleted
	case errors.Is(err, file.ErrQuota):
		return statusDiskFull
	}
	return statusInvalidParameter
}

// sharePath turns a wire name (`dir\file`) into a share-relative path,
// judging it as Windows does; ok false is STATUS_OBJECT_NAME_INVALID. Only
// `\` separates components: `/` is one of the characters MS-FSCC 2.1.5.2
// forbids in a file name (the others, `"*:<>?|` and controls, are judged by
// the File service's naming rules as the path is parsed, so that SMB and
// REST refuse the same names). Each component loses its trailing spaces
// and dots, as Windows' path normalisation drops them and Azure Files
// trims trailing dots; a component of nothing else ("..", " ") is invalid.
func sharePath(name string) (path string, ok bool) {
	if strings.ContainsRune(name, '/') {
		return "", false
	}
	parts := strings.Split(strings.Trim(name, `\`), `\`)
	for i, p := range parts {
		if parts[i] = strings.TrimRight(p, " ."); parts[i] == "" && p != "" {
			return "", false
		}
	}
	return strings.Join(parts, "/"), true
}

func newHandleID() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return le.Uint64(b[:])>>1 | 1
}

func (c *conn) create(r *request) (uint32, []byte) {
	b := r.body
	if len(b) < 56 {
		return statusInvalidParameter, nil
	}
	if r.tree.ipc {
		return statusObjectNameNotFound, nil
	}
	access := mapAccess(le.Uint32(b[24:]))
	attrs, share := le.Uint32(b[28:]), le.Uint32(b[32:])
	disp, opts := le.Uint32(b[36:]), le.Uint32(b[40:])
	rawName := slice(r.msg, int(le.Uint16(b[44:])), int(le.Uint16(b[46:])))
	if disp > file.OverwriteIf || opts&(optDirectory|optNonDirectory) == optDirectory|optNonDirectory {
		return statusInvalidParameter, nil
	}
	if opts&optDeleteOnClose != 0 && access&accDelete == 0 {
		return statusInvalidParameter, nil
	}
	path, ok := sharePath(fromUTF16(rawName))
	if !ok {
		return statusObjectNameInvalid, nil
	}
	if i := strings.IndexByte(path, ':'); i >= 0 {
		return statusObjectNameNotFound, nil // named streams are not offered
	}
	o := &open{id: newHandleID(), path: path, access: access, doc: opts&optDeleteOnClose != 0}
	now := c.srv.clock.Now().UTC()
	req := file.OpenRequest{Disposition: int(disp), Dir: opts&optDirectory != 0, NonDir: opts&optNonDirectory != 0,
		Attrs: attrs, DeleteOnClose: o.doc, Open: smbstate.Open{HandleID: o.id, SessionID: r.sess.id, ClientIP: c.nc.RemoteAddr().String(),
			OpenTime: now, Access: stateAccess(access), Share: stateShare(share)}}
	e, action, err := c.srv.fs.Open(c.ctx(), r.sess.account, r.tree.share, path, req)
	if err != nil {
		return statusOf(err), nil
	}
	if o.doc && e.Dir && e.Opens == 1 {
		if list, err := c.srv.fs.List(c.ctx(), r.sess.account, r.tree.share, path); err == nil && len(list) > 0 {
			_, _ = c.srv.fs.Close(c.ctx(), r.sess.account, r.tree.share, path, o.id, false)
			return statusDirectoryNotEmpty, nil
		}
	}
	o.dir, o.fileID = e.Dir, e.ID
	r.tree.opens[o.id] = o
	resp := newBuf(88).u16(0, 89).u32(4, uint32(action))
	putTimes(resp, 8, e)
	resp.u64(40, allocation(e.Size)).u64(48, uint64(e.Size)).u32(56, wireAttrs(e))
	resp.u64(64, o.id).u64(72, o.id)
	copy(r.ch.fileID[:], resp[64:80])
	return statusOK, append(resp, 0)
}

// putTimes writes creation, last access, last write and change times.
func putTimes(b buf, at int, e file.Entry) {
	b.ft(at, e.Created).ft(at+8, e.Written).ft(at+16, e.Written).ft(at+24, e.Changed)
}

func allocation(size int64) uint64 { return uint64((size + 4095) &^ 4095) }

func wireAttrs(e file.Entry) uint32 {
	a := e.Attrs
	if e.Dir {
		a |= attrDirectoryFlag
	}
	if a == 0 {
		a = attrNormal
	}
	return a
}

// openOf finds the open named by the FileId at body offset at: the chain's
// last FileId for related requests, and one REST has force-closed is gone.
func (c *conn) openOf(r *request, at int) (*open, uint32) {
	if len(r.body) < at+16 {
		return nil, statusInvalidParameter
	}
	persistent, id := le.Uint64(r.body[at:]), le.Uint64(r.body[at+8:])
	if id == ^uint64(0) && r.h.flags&flagRelated != 0 {
		id = le.Uint64(r.ch.fileID[8:])
		persistent = id
	}
	o := r.tree.opens[id]
	if o == nil || persistent != o.id { // both halves of a FileId name the open
		return nil, statusFileClosed
	}
	if at, has, err := c.srv.fs.Locate(c.ctx(), r.sess.account, r.tree.share, o.path, o.fileID, o.id); err == nil {
		if !has {
			delete(r.tree.opens, o.id)
			c.srv.locks.ReleaseOpen(o.id)
			return nil, statusFileClosed
		}
		o.path = at // REST may have renamed it
	}
	le.PutUint64(r.ch.fileID[:], o.id)
	le.PutUint64(r.ch.fileID[8:], o.id)
	return o, statusOK
}

func (c *conn) closeOpen(t *tree, o *open) (file.Entry, error) {
	c.closeWaits(o.id)
	delete(t.opens, o.id)
	c.srv.locks.ReleaseOpen(o.id)
	account := c.accountOf(t)
	if at, _, err := c.srv.fs.Locate(c.ctx(), account, t.share, o.path, o.fileID, o.id); err == nil && at != "" {
		o.path = at
	}
	return c.srv.fs.Close(c.ctx(), account, t.share, o.path, o.id, o.doc)
}

// accountOf finds the account of the session holding t.
func (c *conn) accountOf(t *tree) string {
	for _, s := range c.sessions {
		if s.trees[t.id] == t {
			return s.account
		}
	}
	return ""
}

func (c *conn) closeFile(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 8)
	if st != statusOK {
		return st, nil
	}
	e, err := c.closeOpen(r.tree, o)
	resp := newBuf(60).u16(0, 60)
	if err == nil && le.Uint16(r.body[2:])&1 != 0 {
		resp.u16(2, 1)
		putTimes(resp, 8, e)
		resp.u64(40, allocation(e.Size)).u64(48, uint64(e.Size)).u32(56, wireAttrs(e))
	}
	return statusOK, resp
}

func (c *conn) read(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 16)
	if st != statusOK {
		return st, nil
	}
	b := r.body
	length, off, minCount := le.Uint32(b[4:]), le.Uint64(b[8:]), le.Uint32(b[32:])
	switch {
	case o.dir:
		return statusInvalidDeviceRequest, nil
	case o.access&(accReadData|accExecute) == 0:
		return statusAccessDenied, nil
	case length > maxIO || off > math.MaxInt64-uint64(length):
		return statusInvalidParameter, nil
	case c.srv.locks.Conflicts(o.fileID, o.id, off, uint64(length), false):
		return statusFileLockConflict, nil
	}
	data, err := c.srv.fs.Read(c.ctx(), r.sess.account, r.tree.share, o.path, int64(off), int64(length))
	if err != nil {
		return statusOf(err), nil
	}
	if length == 0 {
		if minCount > 0 {
			return statusEndOfFile, nil
		}
		data = nil // a zero-length read succeeds wherever its offset is valid
	} else if len(data) == 0 || uint32(len(data)) < minCount {
		return statusEndOfFile, nil
	}
	resp := newBuf(16).u16(0, 17).u32(4, uint32(len(data)))
	resp[2] = headerSize + 16
	return statusOK, append(resp, data...)
}

func (c *conn) write(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 16)
	if st != statusOK {
		return st, nil
	}
	b := r.body
	data := slice(r.msg, int(le.Uint16(b[2:])), int(le.Uint32(b[4:])))
	off := le.Uint64(b[8:])
	switch {
	case data == nil:
		return statusInvalidParameter, nil
	case o.dir:
		return statusInvalidDeviceRequest, nil
	case o.access&(accWriteData|accAppendData) == 0:
		return statusAccessDenied, nil
	}
	if off == ^uint64(0) && o.access&accWriteData == 0 { // an append-only open appends
		e, err := c.srv.fs.Stat(c.ctx(), r.sess.account, r.tree.share, o.path)
		if err != nil {
			return statusOf(err), nil
		}
		off = uint64(e.Size)
	}
	if off > math.MaxInt64 || (len(data) > 0 && (off > maxFileSize || uint64(len(data)) > maxFileSize-off)) {
		return statusInvalidParameter, nil
	}
	if c.srv.locks.Conflicts(o.fileID, o.id, off, uint64(len(data)), true) {
		return statusFileLockConflict, nil
	}
	if len(data) > 0 {
		if _, err := c.srv.fs.Write(c.ctx(), r.sess.account, r.tree.share, o.path, int64(off), data); err != nil {
			return statusOf(err), nil
		}
	}
	return statusOK, newBuf(16).u16(0, 17).u32(4, uint32(len(data)))
}

// maxFileSize is the largest end of file a write may reach, NTFS's
// (0xfffffff0000, as Windows and smbtorture's rw.invalid have it).
const maxFileSize = 0xfffffff0000

// timeOrZero reads a FILETIME field that may mean "leave unchanged".
func timeOrZero(b []byte) time.Time { return fromFiletime(le.Uint64(b)) }
