package sddl

import "encoding/binary"

// Sizes of the binary structures.
const (
	headerSize    = 20 // SECURITY_DESCRIPTOR_RELATIVE
	aclHeaderSize = 8
	aceHeaderSize = 4
	aclRevision   = 2
	aclRevisionDS = 4 // an ACL holding object ACEs
)

// Binary is the descriptor in self-relative form: the header, then owner,
// group, SACL and DACL, as Windows lays them out.
func (d *Descriptor) Binary() []byte {
	control := d.Control | controlSelfRelative
	if d.DACL.Present {
		control |= controlDACLPresent
	}
	if d.SACL.Present {
		control |= controlSACLPresent
	}
	b := make([]byte, headerSize, 256)
	b[0] = 1
	binary.LittleEndian.PutUint16(b[2:], control)
	if d.Owner != nil {
		binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
		b = d.Owner.appendBinary(b)
	}
	if d.Group != nil {
		binary.LittleEndian.PutUint32(b[8:], uint32(len(b)))
		b = d.Group.appendBinary(b)
	}
	if d.SACL.Present && !d.SACL.Null {
		binary.LittleEndian.PutUint32(b[12:], uint32(len(b)))
		b = d.SACL.appendBinary(b)
	}
	if d.DACL.Present && !d.DACL.Null {
		binary.LittleEndian.PutUint32(b[16:], uint32(len(b)))
		b = d.DACL.appendBinary(b)
	}
	return b
}

func (acl ACL) appendBinary(b []byte) []byte {
	revision := byte(aclRevision)
	size := aclHeaderSize
	for _, a := range acl.ACEs {
		size += a.binarySize()
		if isObjectType(a.Type) {
			revision = aclRevisionDS
		}
	}
	b = append(b, revision, 0)
	b = appendUint16(b, uint16(size))
	b = appendUint16(b, uint16(len(acl.ACEs)))
	b = append(b, 0, 0)
	for _, a := range acl.ACEs {
		b = a.appendBinary(b)
	}
	return b
}

func (a ACE) binarySize() int {
	size := aceHeaderSize + 4 + a.SID.binarySize()
	if isObjectType(a.Type) {
		size += 4
		if a.ObjectType != nil {
			size += 16
		}
		if a.InheritedObjectType != nil {
			size += 16
		}
	}
	return size
}

func (a ACE) appendBinary(b []byte) []byte {
	b = append(b, a.Type, a.Flags)
	b = appendUint16(b, uint16(a.binarySize()))
	b = appendUint32(b, a.Mask)
	if isObjectType(a.Type) {
		var flags uint32
		if a.ObjectType != nil {
			flags |= 1
		}
		if a.InheritedObjectType != nil {
			flags |= 2
		}
		b = appendUint32(b, flags)
		if a.ObjectType != nil {
			b = append(b, a.ObjectType[:]...)
		}
		if a.InheritedObjectType != nil {
			b = append(b, a.InheritedObjectType[:]...)
		}
	}
	return a.SID.appendBinary(b)
}

// FromBinary reads a self-relative security descriptor.
func FromBinary(b []byte) (*Descriptor, error) {
	if len(b) < headerSize || b[0] != 1 {
		return nil, invalid("not a revision 1 security descriptor")
	}
	control := binary.LittleEndian.Uint16(b[2:])
	if control&controlSelfRelative == 0 {
		return nil, invalid("not self-relative")
	}
	d := &Descriptor{Control: control &^ (controlSelfRelative | controlDACLPresent | controlSACLPresent)}
	offsets := [4]int{}
	for i := range offsets {
		offsets[i] = int(binary.LittleEndian.Uint32(b[4+4*i:]))
	}
	var err error
	if offsets[0] != 0 {
		if d.Owner, err = sidAt(b, offsets[0]); err != nil {
			return nil, err
		}
	}
	if offsets[1] != 0 {
		if d.Group, err = sidAt(b, offsets[1]); err != nil {
			return nil, err
		}
	}
	if control&controlSACLPresent != 0 {
		if d.SACL, err = aclAt(b, offsets[2]); err != nil {
			return nil, err
		}
	}
	if control&controlDACLPresent != 0 {
		if d.DACL, err = aclAt(b, offsets[3]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func sidAt(b []byte, off int) (*SID, error) {
	sid, _, err := readSID(b, off)
	return &sid, err
}

// aclAt reads a present ACL; offset 0 is a NULL ACL.
func aclAt(b []byte, off int) (ACL, error) {
	acl := ACL{Present: true}
	if off == 0 {
		acl.Null = true
		return acl, nil
	}
	if off < headerSize || off+aclHeaderSize > len(b) || (b[off] != aclRevision && b[off] != aclRevisionDS) {
		return acl, invalid("ACL at %d", off)
	}
	size := int(binary.LittleEndian.Uint16(b[off+2:]))
	count := int(binary.LittleEndian.Uint16(b[off+4:]))
	if size < aclHeaderSize || off+size > len(b) {
		return acl, invalid("ACL at %d: size %d", off, size)
	}
	end := off + size
	pos := off + aclHeaderSize
	for i := 0; i < count; i++ {
		a, n, err := readACE(b[:end], pos)
		if err != nil {
			return acl, err
		}
		acl.ACEs = append(acl.ACEs, a)
		pos += n
	}
	return acl, nil
}

func readACE(b []byte, off int) (ACE, int, error) {
	if off+aceHeaderSize+4 > len(b) {
		return ACE{}, 0, invalid("ACE at %d", off)
	}
	a := ACE{Type: b[off], Flags: b[off+1]}
	size := int(binary.LittleEndian.Uint16(b[off+2:]))
	if size < aceHeaderSize+4+8 || off+size > len(b) {
		return ACE{}, 0, invalid("ACE at %d: size %d", off, size)
	}
	known := false
	for _, t := range aceTypeNames {
		known = known || t.typ == a.Type
	}
	if !known {
		return ACE{}, 0, invalid("ACE type 0x%x", a.Type)
	}
	a.Mask = getUint32(b[off+4:])
	pos := off + 8
	end := off + size
	if isObjectType(a.Type) {
		if pos+4 > end {
			return ACE{}, 0, invalid("object ACE at %d", off)
		}
		flags := getUint32(b[pos:])
		pos += 4
		for _, g := range []struct {
			bit uint32
			dst **GUID
		}{{1, &a.ObjectType}, {2, &a.InheritedObjectType}} {
			if flags&g.bit == 0 {
				continue
			}
			if pos+16 > end {
				return ACE{}, 0, invalid("object ACE at %d", off)
			}
			var guid GUID
			copy(guid[:], b[pos:pos+16])
			*g.dst = &guid
			pos += 16
		}
	}
	sid, n, err := readSID(b[:end], pos)
	if err != nil {
		return ACE{}, 0, err
	}
	if pos+n > end {
		return ACE{}, 0, invalid("ACE at %d", off)
	}
	a.SID = sid
	return a, size, nil
}

func appendUint16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func appendUint32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func putUint16(b []byte, v uint16)           { binary.LittleEndian.PutUint16(b, v) }
func putUint32(b []byte, v uint32)           { binary.LittleEndian.PutUint32(b, v) }
func getUint16(b []byte) uint16              { return binary.LittleEndian.Uint16(b) }
func getUint32(b []byte) uint32              { return binary.LittleEndian.Uint32(b) }
