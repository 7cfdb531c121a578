package smb

import (
	"strings"
	"unicode"

	"github.com/lazuli-storage/lazuli/internal/service/file"
)

// Directory information classes (MS-FSCC 2.4).
const (
	classDirectory       = 1
	classFullDirectory   = 2
	classBothDirectory   = 3
	classNames           = 12
	classIDBothDirectory = 37
	classIDFullDirectory = 38
	classIDExtdDirectory = 60
)

// Query directory flags.
const (
	qdRestart = 0x1
	qdSingle  = 0x2
	qdReopen  = 0x10
)

func (c *conn) queryDirectory(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 8)
	if st != statusOK {
		return st, nil
	}
	b := r.body
	class, flags := b[2], b[3]
	pattern := fromUTF16(slice(r.msg, int(le.Uint16(b[24:])), int(le.Uint16(b[26:]))))
	outLen := int(le.Uint32(b[28:]))
	if !o.dir {
		return statusInvalidParameter, nil
	}
	switch class {
	case classDirectory, classFullDirectory, classBothDirectory, classNames,
		classIDBothDirectory, classIDFullDirectory, classIDExtdDirectory:
	default:
		return statusInvalidInfoClass, nil
	}
	if flags&(qdRestart|qdReopen) != 0 || !o.listed {
		if err := c.startListing(r, o, pattern); err != nil {
			return statusOf(err), nil
		}
	}
	if o.listPos >= len(o.listing) {
		if o.listPos == 0 {
			o.listPos = 1 // the next call says "no more"
			return statusNoSuchFile, nil
		}
		return statusNoMoreFiles, nil
	}
	var out []byte
	last := -1
	for o.listPos < len(o.listing) {
		ent := dirEntry(class, o.listing[o.listPos])
		start := len(out)
		if last >= 0 {
			start = len(align8(out))
		}
		if start+len(ent) > outLen {
			break
		}
		if last >= 0 {
			out = align8(out)
			le.PutUint32(out[last:], uint32(start-last))
		}
		last = start
		out = append(out, ent...)
		o.listPos++
		if flags&qdSingle != 0 {
			break
		}
	}
	if last < 0 {
		return statusInfoLengthMismatch, nil
	}
	resp := newBuf(8).u16(0, 9).u16(2, headerSize+8).u32(4, uint32(len(out)))
	return statusOK, append(resp, out...)
}

// startListing snapshots the directory's entries matching pattern, with
// "." and ".." first as Windows servers list them.
func (c *conn) startListing(r *request, o *open, pattern string) error {
	acct, share := r.sess.account, r.tree.share
	self, err := c.srv.fs.Stat(c.ctx(), acct, share, o.path)
	if err != nil {
		return err
	}
	parent := self
	if o.path != "" {
		if i := strings.LastIndexByte(o.path, '/'); i >= 0 {
			parent, err = c.srv.fs.Stat(c.ctx(), acct, share, o.path[:i])
		} else {
			parent, err = c.srv.fs.Stat(c.ctx(), acct, share, "")
		}
		if err != nil {
			return err
		}
	}
	children, err := c.srv.fs.List(c.ctx(), acct, share, o.path)
	if err != nil {
		return err
	}
	if pattern == "" {
		pattern = "*"
	}
	o.listing, o.listPos, o.listed = nil, 0, true
	self.Name, parent.Name = ".", ".."
	for _, e := range append([]file.Entry{self, parent}, children...) {
		if wildcardMatch(pattern, e.Name) {
			o.listing = append(o.listing, e)
		}
	}
	return nil
}

// dirEntry encodes one entry of a directory information class, with a
// zero NextEntryOffset.
func dirEntry(class byte, e file.Entry) []byte {
	name := utf16le(e.Name)
	if class == classNames {
		b := newBuf(12).u32(8, uint32(len(name)))
		return append(b, name...)
	}
	fixed := map[byte]int{classDirectory: 64, classFullDirectory: 68, classBothDirectory: 94,
		classIDBothDirectory: 104, classIDFullDirectory: 80, classIDExtdDirectory: 88}[class]
	b := newBuf(fixed)
	putTimes(b, 8, e)
	b.u64(40, uint64(e.Size)).u64(48, allocation(e.Size)).u32(56, wireAttrs(e)).u32(60, uint32(len(name)))
	switch class {
	case classIDBothDirectory:
		b.u64(96, e.ID)
	case classIDFullDirectory:
		b.u64(72, e.ID)
	case classIDExtdDirectory:
		b.u64(72, e.ID)
	}
	return append(b, name...)
}

// wildcardMatch matches name against an SMB pattern case-insensitively:
// '*' and '<' any run, '?' and '>' one character, '"' a dot.
func wildcardMatch(pattern, name string) bool {
	p := []rune(strings.Map(unicode.ToUpper, pattern))
	n := []rune(strings.Map(unicode.ToUpper, name))
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(p) {
			switch p[i] {
			case '*', '<':
				for k := j; k <= len(n); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case '?', '>':
				if j >= len(n) {
					return p[i] == '>' && match(i+1, j)
				}
			case '"':
				if j >= len(n) {
					return match(i+1, j)
				}
				if n[j] != '.' {
					return false
				}
			default:
				if j >= len(n) || n[j] != p[i] {
					return false
				}
			}
			i++
			j++
		}
		return j == len(n)
	}
	return match(0, 0)
}
