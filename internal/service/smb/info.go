package smb

import (
	"path"

	"github.com/lazuli-storage/lazuli/internal/rule/sddl"
	"github.com/lazuli-storage/lazuli/internal/service/file"
)

// Info types.
const (
	infoFile       = 1
	infoFilesystem = 2
	infoSecurity   = 3
)

// File information classes answered or set.
const (
	fileBasic         = 4
	fileStandard      = 5
	fileInternal      = 6
	fileEA            = 7
	fileAccess        = 8
	fileName          = 9
	fileRename        = 10
	fileDisposition   = 13
	filePosition      = 14
	fileMode          = 16
	fileAlignment     = 17
	fileAll           = 18
	fileAllocation    = 19
	fileEndOfFile     = 20
	fileAlternateName = 21
	fileStream        = 22
	fileCompression   = 28
	fileNetworkOpen   = 34
	fileAttributeTag  = 35
	fileDispositionEx = 64
)

func (c *conn) queryInfo(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 24)
	if st != statusOK {
		return st, nil
	}
	b := r.body
	typ, class, outLen := b[2], b[3], int(le.Uint32(b[4:]))
	var out []byte
	variable := false
	switch typ {
	case infoFile:
		e, err := c.srv.fs.Stat(c.ctx(), r.sess.account, r.tree.share, o.path)
		if err != nil {
			return statusOf(err), nil
		}
		out, variable, st = fileInfo(class, e, o)
	case infoFilesystem:
		out, variable, st = fsInfo(class, c.srv.started)
	case infoSecurity:
		out, st = c.securityInfo(r, o, le.Uint32(b[16:]))
		if st != statusOK {
			return st, nil
		}
		if len(out) > outLen {
			return statusBufferTooSmall, newBuf(12).u16(0, 9).u32(4, 4).u32(8, uint32(len(out)))
		}
	default:
		return statusInvalidParameter, nil
	}
	if st != statusOK {
		return st, nil
	}
	status := uint32(statusOK)
	if len(out) > outLen {
		if !variable || outLen < fixedPart(typ, class) {
			return statusInfoLengthMismatch, nil
		}
		out, status = out[:outLen], statusBufferOverflow
	}
	resp := newBuf(8).u16(0, 9).u16(2, headerSize+8).u32(4, uint32(len(out)))
	return status, append(resp, out...)
}

// fixedPart is the length of a variable-length class before its name: a
// buffer shorter than that cannot hold a truncated answer.
func fixedPart(typ, class byte) int {
	switch {
	case typ == infoFile && class == fileAll:
		return 104
	case typ == infoFile && class == fileStream:
		return 32
	case typ == infoFile && class == fileAlternateName:
		return 8
	case typ == infoFilesystem && class == 1:
		return 24
	case typ == infoFilesystem && class == 5:
		return 16
	}
	return 4
}

func basicInfo(e file.Entry) buf {
	b := newBuf(40)
	putTimes(b, 0, e)
	return b.u32(32, wireAttrs(e))
}

func standardInfo(e file.Entry) buf {
	b := newBuf(24).u64(0, allocation(e.Size)).u64(8, uint64(e.Size)).u32(16, 1)
	if e.DeletePending {
		b[20] = 1
	}
	if e.Dir {
		b[21] = 1
	}
	return b
}

// fileInfo encodes a file information class; variable reports whether it
// may be cut short with STATUS_BUFFER_OVERFLOW.
func fileInfo(class byte, e file.Entry, o *open) ([]byte, bool, uint32) {
	name := utf16le(`\` + o.path)
	switch class {
	case fileBasic:
		return basicInfo(e), false, statusOK
	case fileStandard:
		return standardInfo(e), false, statusOK
	case fileInternal:
		return newBuf(8).u64(0, e.ID), false, statusOK
	case fileEA, filePosition, fileMode:
		return newBuf(map[byte]int{fileEA: 4, filePosition: 8, fileMode: 4}[class]), false, statusOK
	case fileAccess:
		return newBuf(4).u32(0, o.access), false, statusOK
	case fileAlignment:
		return newBuf(4), false, statusOK
	case fileName:
		return append(newBuf(4).u32(0, uint32(len(name))), name...), true, statusOK
	case fileAll:
		out := append(basicInfo(e), standardInfo(e)...)
		out = append(out, newBuf(8).u64(0, e.ID)...)
		out = append(out, newBuf(4)...)                  // EA
		out = append(out, newBuf(4).u32(0, o.access)...) // access
		out = append(out, newBuf(16)...)                 // position, mode, alignment
		out = append(out, newBuf(4).u32(0, uint32(len(name)))...)
		return append(out, name...), true, statusOK
	case fileAlternateName: // no 8.3 names are generated: the name is its own short name
		short := utf16le(path.Base("/" + o.path))
		return append(newBuf(4).u32(0, uint32(len(short))), short...), true, statusOK
	case fileStream:
		if e.Dir {
			return []byte{}, false, statusOK
		}
		sn := utf16le("::$DATA")
		b := newBuf(24).u32(4, uint32(len(sn))).u64(8, uint64(e.Size)).u64(16, allocation(e.Size))
		return append(b, sn...), true, statusOK
	case fileCompression: // never compressed
		return newBuf(16).u64(0, uint64(e.Size)), false, statusOK
	case fileNetworkOpen:
		b := newBuf(56)
		putTimes(b, 0, e)
		return b.u64(32, allocation(e.Size)).u64(40, uint64(e.Size)).u32(48, wireAttrs(e)), false, statusOK
	case fileAttributeTag:
		return newBuf(8).u32(0, wireAttrs(e)), false, statusOK
	}
	return nil, false, statusInvalidInfoClass
}

// Volume geometry reported: 4 KiB units, 4 TiB, half free.
const (
	fsUnits       = 1 << 30
	fsSectorBytes = 512
	fsUnitSectors = 8
)

// fsInfo encodes a file-system information class.
func fsInfo(class byte, created interface{ UnixNano() int64 }) ([]byte, bool, uint32) {
	switch class {
	case 1: // volume
		label := utf16le("lazuli")
		b := newBuf(18).u64(0, uint64(created.UnixNano()/100+116444736000000000)).u32(8, 0x4c415a55).u32(12, uint32(len(label)))
		return append(b, label...), true, statusOK
	case 3: // size
		return newBuf(24).u64(0, fsUnits).u64(8, fsUnits/2).u32(16, fsUnitSectors).u32(20, fsSectorBytes), false, statusOK
	case 4: // device: disk
		return newBuf(8).u32(0, 7).u32(4, 0x20), false, statusOK
	case 5: // attribute: case-preserving, Unicode names, persistent ACLs
		name := utf16le("NTFS")
		b := newBuf(12).u32(0, 0x2|0x4|0x8).u32(4, 255).u32(8, uint32(len(name)))
		return append(b, name...), true, statusOK
	case 6: // control (quotas): none enforced
		return newBuf(48).u64(24, ^uint64(0)).u64(32, ^uint64(0)), false, statusOK
	case 8: // object id
		return newBuf(64), false, statusOK
	case 7: // full size
		return newBuf(32).u64(0, fsUnits).u64(8, fsUnits/2).u64(16, fsUnits/2).u32(24, fsUnitSectors).u32(28, fsSectorBytes), false, statusOK
	case 11: // sector size
		return newBuf(28).u32(0, fsSectorBytes).u32(4, 4096).u32(8, 4096).u32(12, 4096).u32(16, 0x3), false, statusOK
	}
	return nil, false, statusInvalidInfoClass
}

// Security information bits a query asks for.
const (
	secOwner = 0x1
	secGroup = 0x2
	secDACL  = 0x4
	secSACL  = 0x8
)

// securityInfo answers a security query from the entry's stored
// permission (x-ms-file-permission), with the parts info asks for; an
// entry without one answers Everyone with full access.
func (c *conn) securityInfo(r *request, o *open, info uint32) ([]byte, uint32) {
	d, err := c.srv.fs.SecurityDescriptor(c.ctx(), r.sess.account, r.tree.share, o.path)
	if err != nil {
		return nil, statusOf(err)
	}
	if d == nil {
		return securityDescriptor(info), statusOK
	}
	part := *d
	if info&secOwner == 0 {
		part.Owner = nil
	}
	if info&secGroup == 0 {
		part.Group = nil
	}
	if info&secDACL == 0 {
		part.DACL = sddl.ACL{}
	}
	if info&secSACL == 0 {
		part.SACL = sddl.ACL{}
	}
	return part.Binary(), statusOK
}

// securityDescriptor is a self-relative descriptor: owner and group
// Everyone and a DACL granting Everyone full access, as far as info asks.
func securityDescriptor(info uint32) []byte {
	everyone := []byte{1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0} // S-1-1-0
	b := newBuf(20)
	b[0] = 1
	control := uint16(0x8000) // self-relative
	add := func(at int, part []byte) {
		b.u32(at, uint32(len(b)))
		b = append(b, part...)
	}
	if info&0x1 != 0 {
		add(4, everyone)
	}
	if info&0x2 != 0 {
		add(8, everyone)
	}
	if info&0x4 != 0 || info == 0 {
		control |= 0x4 // DACL present
		ace := append(newBuf(8).u16(2, uint16(8+len(everyone))).u32(4, accAll), everyone...)
		acl := append(newBuf(8).u16(2, uint16(8+len(ace))).u16(4, 1), ace...)
		acl[0] = 2
		add(16, acl)
	}
	b.u16(2, control)
	return b
}

func (c *conn) setInfo(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 16)
	if st != statusOK {
		return st, nil
	}
	b := r.body
	typ, class := b[2], b[3]
	in := slice(r.msg, int(le.Uint16(b[8:])), int(le.Uint32(b[4:])))
	if in == nil {
		return statusInvalidParameter, nil
	}
	ok := newBuf(2).u16(0, 2)
	switch typ {
	case infoSecurity:
		return statusOK, ok // descriptors are not stored from SMB
	case infoFile:
	default:
		return statusNotSupported, nil
	}
	acct, share := r.sess.account, r.tree.share
	var err error
	switch class {
	case fileBasic:
		if len(in) < 36 {
			return statusInfoLengthMismatch, nil
		}
		_, err = c.srv.fs.SetBasic(c.ctx(), acct, share, o.path, file.Basic{Created: timeOrZero(in), Written: timeOrZero(in[16:]),
			Changed: timeOrZero(in[24:]), Attrs: le.Uint32(in[32:]) &^ attrNormal})
	case fileRename:
		return c.rename(r, o, in), ok
	case fileDisposition, fileDispositionEx:
		if len(in) < 1 {
			return statusInfoLengthMismatch, nil
		}
		if o.access&accDelete == 0 {
			return statusAccessDenied, nil
		}
		err = c.srv.fs.SetDeletePending(c.ctx(), acct, share, o.path, in[0]&1 != 0)
	case fileEndOfFile:
		if len(in) < 8 {
			return statusInfoLengthMismatch, nil
		}
		if o.access&accWriteData == 0 {
			return statusAccessDenied, nil
		}
		_, err = c.srv.fs.Truncate(c.ctx(), acct, share, o.path, int64(le.Uint64(in)))
	case fileAllocation, filePosition, fileMode:
	default:
		return statusInvalidInfoClass, nil
	}
	if err != nil {
		return statusOf(err), nil
	}
	return statusOK, ok
}

// rename serves FileRenameInformation: the new name is share-relative.
func (c *conn) rename(r *request, o *open, in []byte) uint32 {
	if len(in) < 20 {
		return statusInfoLengthMismatch
	}
	if o.access&accDelete == 0 {
		return statusAccessDenied
	}
	raw := slice(in, 20, int(le.Uint32(in[16:])))
	if raw == nil {
		return statusInvalidParameter
	}
	to, ok := sharePath(fromUTF16(raw))
	if !ok {
		return statusObjectNameInvalid
	}
	if err := c.srv.fs.Rename(c.ctx(), r.sess.account, r.tree.share, o.path, to, in[0] != 0); err != nil {
		return statusOf(err)
	}
	for _, other := range r.tree.opens {
		if other.path == o.path {
			other.path = to
		} else if o.dir && len(other.path) > len(o.path) && other.path[:len(o.path)+1] == o.path+"/" {
			other.path = path.Join(to, other.path[len(o.path)+1:])
		}
	}
	return statusOK
}
