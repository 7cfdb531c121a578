// Package sddl converts Windows security descriptors between their SDDL
// text ("O:BAG:SYD:P(A;OICI;FA;;;BA)") and their self-relative binary form,
// the two formats in which Azure Files takes and returns file permissions
// (x-ms-file-permission-format: sddl or binary) and the form an SMB client
// reads with a security query.
//
// The SDDL grammar is the one of Microsoft's "Security Descriptor String
// Format" page: owner, group, DACL and SACL parts, ACL flags P, AI, AR and
// NO_ACCESS_CONTROL, ACEs of the allow, deny, audit, alarm, mandatory label
// and object types with their flags, rights as hexadecimal or as the
// two-letter codes, and SIDs as S-R-I-S... strings or the two-letter
// aliases that need no domain. Conditional ACEs and domain-relative aliases
// (DA, DU, ...) are refused: a file share has no domain to resolve them in.
package sddl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalid is returned for text or bytes that are not a security
// descriptor this package reads.
var ErrInvalid = errors.New("sddl: invalid security descriptor")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Control bits of a security descriptor (SECURITY_DESCRIPTOR_CONTROL).
const (
	controlDACLPresent        = 0x0004
	controlSACLPresent        = 0x0010
	controlDACLAutoInheritReq = 0x0100
	controlDACLAutoInherited  = 0x0400
	controlDACLProtected      = 0x1000
	controlSelfRelative       = 0x8000
	// The SACL's auto-inherit and protected bits are the DACL's shifted
	// left once (0x0200, 0x0800, 0x2000).
	controlSACLFlagsShift = 1
)

// Descriptor is a security descriptor. A nil ACL with its Present flag set
// is a NULL ACL (NO_ACCESS_CONTROL); an ACL that is not present is absent.
type Descriptor struct {
	Owner, Group *SID
	DACL, SACL   ACL
	// Control holds the auto-inherit and protected bits of both ACLs, as
	// in the binary form; the present and self-relative bits are derived.
	Control uint16
}

// ACL is an access control list.
type ACL struct {
	Present bool
	Null    bool // NO_ACCESS_CONTROL: present, but no list at all
	ACEs    []ACE
}

// ACE is one access control entry.
type ACE struct {
	Type  byte
	Flags byte
	Mask  uint32
	// ObjectType and InheritedObjectType are the GUIDs of object ACEs, nil
	// when absent.
	ObjectType, InheritedObjectType *GUID
	SID                             SID
}

// GUID is a 16-byte GUID as stored in an object ACE.
type GUID [16]byte

// ACE types.
const (
	aceAccessAllowed       = 0x00
	aceAccessDenied        = 0x01
	aceSystemAudit         = 0x02
	aceSystemAlarm         = 0x03
	aceAccessAllowedObject = 0x05
	aceAccessDeniedObject  = 0x06
	aceSystemAuditObject   = 0x07
	aceSystemAlarmObject   = 0x08
	aceMandatoryLabel      = 0x11
)

var aceTypeNames = []struct {
	name string
	typ  byte
}{
	{"A", aceAccessAllowed}, {"D", aceAccessDenied}, {"AU", aceSystemAudit}, {"AL", aceSystemAlarm},
	{"OA", aceAccessAllowedObject}, {"OD", aceAccessDeniedObject}, {"OU", aceSystemAuditObject},
	{"OL", aceSystemAlarmObject}, {"ML", aceMandatoryLabel},
}

func isObjectType(t byte) bool { return t >= aceAccessAllowedObject && t <= aceSystemAlarmObject }

// ACE flags, in the order SDDL writes them.
var aceFlagNames = []struct {
	name string
	bit  byte
}{
	{"OI", 0x01}, {"CI", 0x02}, {"NP", 0x04}, {"IO", 0x08}, {"ID", 0x10}, {"SA", 0x40}, {"FA", 0x80},
}

// Rights that SDDL writes as one code when the mask is exactly theirs.
var wholeRights = []struct {
	name string
	mask uint32
}{
	{"FA", 0x001F01FF}, {"FR", 0x00120089}, {"FW", 0x00120116}, {"FX", 0x001200A0},
	{"KA", 0x000F003F}, {"KR", 0x00020019}, {"KW", 0x00020006},
}

// Single-bit rights, in ascending bit order: a mask made only of these is
// written as their codes, anything else in hexadecimal.
var bitRights = []struct {
	name string
	mask uint32
}{
	{"CC", 0x1}, {"DC", 0x2}, {"LC", 0x4}, {"SW", 0x8}, {"RP", 0x10}, {"WP", 0x20}, {"DT", 0x40},
	{"LO", 0x80}, {"CR", 0x100}, {"SD", 0x10000}, {"RC", 0x20000}, {"WD", 0x40000}, {"WO", 0x80000},
	{"GA", 0x10000000}, {"GX", 0x20000000}, {"GW", 0x40000000}, {"GR", 0x80000000},
}

// rightCodes are the codes SDDL reads (it reads some it never writes:
// KX, and NR, NW and NX of mandatory labels).
func rightCode(code string) (uint32, bool) {
	for _, r := range wholeRights {
		if r.name == code {
			return r.mask, true
		}
	}
	for _, r := range bitRights {
		if r.name == code {
			return r.mask, true
		}
	}
	switch code {
	case "KX":
		return 0x00020019, true
	case "NR":
		return 0x1, true
	case "NW":
		return 0x2, true
	case "NX":
		return 0x4, true
	}
	return 0, false
}

// Parse reads SDDL text.
func Parse(text string) (*Descriptor, error) {
	d := &Descriptor{}
	order := "OGDS"
	last := -1
	s := strings.TrimSpace(text)
	if s == "" {
		return nil, invalid("empty")
	}
	for s != "" {
		if len(s) < 2 || s[1] != ':' {
			return nil, invalid("expected O:, G:, D: or S: at %q", s)
		}
		idx := strings.IndexByte(order, s[0])
		if idx <= last {
			return nil, invalid("part %c: out of order or repeated", s[0])
		}
		last = idx
		body, rest := splitPart(s[2:])
		var err error
		switch s[0] {
		case 'O':
			d.Owner, err = parseSIDPart(body)
		case 'G':
			d.Group, err = parseSIDPart(body)
		case 'D':
			err = d.parseACL(body, &d.DACL, 0)
		case 'S':
			err = d.parseACL(body, &d.SACL, controlSACLFlagsShift)
		}
		if err != nil {
			return nil, err
		}
		s = rest
	}
	return d, nil
}

// splitPart cuts one part's body from what follows: the body ends where
// the next "X:" part starts outside parentheses.
func splitPart(s string) (body, rest string) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		default:
			if depth == 0 && i+1 < len(s) && s[i+1] == ':' && strings.IndexByte("OGDS", s[i]) >= 0 {
				return s[:i], s[i:]
			}
		}
	}
	return s, ""
}

func parseSIDPart(s string) (*SID, error) {
	sid, err := ParseSID(s)
	if err != nil {
		return nil, err
	}
	return &sid, nil
}

// parseACL reads an ACL part: flags, then parenthesised ACEs. shift moves
// the control bits to the SACL's positions.
func (d *Descriptor) parseACL(s string, acl *ACL, shift uint) error {
	acl.Present = true
	flags, aces := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 {
		flags, aces = s[:i], s[i:]
	}
	for flags != "" {
		switch {
		case strings.HasPrefix(flags, "NO_ACCESS_CONTROL"):
			acl.Null = true
			flags = flags[len("NO_ACCESS_CONTROL"):]
		case strings.HasPrefix(flags, "P"):
			d.Control |= controlDACLProtected << shift
			flags = flags[1:]
		case strings.HasPrefix(flags, "AI"):
			d.Control |= controlDACLAutoInherited << shift
			flags = flags[2:]
		case strings.HasPrefix(flags, "AR"):
			d.Control |= controlDACLAutoInheritReq << shift
			flags = flags[2:]
		default:
			return invalid("unknown ACL flags %q", flags)
		}
	}
	if acl.Null && aces != "" {
		return invalid("a NULL ACL has no entries")
	}
	for aces != "" {
		end := strings.IndexByte(aces, ')')
		if aces[0] != '(' || end < 0 {
			return invalid("malformed ACE list %q", aces)
		}
		ace, err := parseACE(aces[1:end])
		if err != nil {
			return err
		}
		acl.ACEs = append(acl.ACEs, ace)
		aces = aces[end+1:]
	}
	return nil
}

// parseACE reads "type;flags;rights;object;inherited object;sid".
func parseACE(s string) (ACE, error) {
	f := strings.Split(s, ";")
	if len(f) != 6 {
		return ACE{}, invalid("ACE %q: want six fields", s)
	}
	var a ACE
	known := false
	for _, t := range aceTypeNames {
		if t.name == f[0] {
			a.Type, known = t.typ, true
		}
	}
	if !known {
		return ACE{}, invalid("ACE type %q", f[0])
	}
	for flags := f[1]; flags != ""; {
		matched := false
		for _, fl := range aceFlagNames {
			if strings.HasPrefix(flags, fl.name) {
				a.Flags |= fl.bit
				flags, matched = flags[2:], true
				break
			}
		}
		if !matched {
			return ACE{}, invalid("ACE flags %q", f[1])
		}
	}
	mask, err := parseRights(f[2])
	if err != nil {
		return ACE{}, err
	}
	a.Mask = mask
	if f[3] != "" || f[4] != "" {
		if !isObjectType(a.Type) {
			return ACE{}, invalid("ACE %q: object GUIDs on a type without them", s)
		}
		if a.ObjectType, err = parseGUID(f[3]); err != nil {
			return ACE{}, err
		}
		if a.InheritedObjectType, err = parseGUID(f[4]); err != nil {
			return ACE{}, err
		}
	}
	if a.SID, err = ParseSID(f[5]); err != nil {
		return ACE{}, err
	}
	return a, nil
}

func parseRights(s string) (uint32, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		v, err := strconv.ParseUint(s[2:], 16, 32)
		if err != nil {
			return 0, invalid("rights %q", s)
		}
		return uint32(v), nil
	}
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		v, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return 0, invalid("rights %q", s)
		}
		return uint32(v), nil
	}
	if len(s)%2 != 0 {
		return 0, invalid("rights %q", s)
	}
	var mask uint32
	for i := 0; i < len(s); i += 2 {
		v, ok := rightCode(s[i : i+2])
		if !ok {
			return 0, invalid("right %q", s[i:i+2])
		}
		mask |= v
	}
	return mask, nil
}

// parseGUID reads a GUID's text (8-4-4-4-12 hex digits) into its stored
// byte order, or nil for an empty field.
func parseGUID(s string) (*GUID, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, "-")
	if len(parts) != 5 || len(parts[0]) != 8 || len(parts[1]) != 4 || len(parts[2]) != 4 || len(parts[3]) != 4 || len(parts[4]) != 12 {
		return nil, invalid("GUID %q", s)
	}
	var g GUID
	d1, err1 := strconv.ParseUint(parts[0], 16, 32)
	d2, err2 := strconv.ParseUint(parts[1], 16, 16)
	d3, err3 := strconv.ParseUint(parts[2], 16, 16)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, invalid("GUID %q", s)
	}
	// The first three groups are little-endian, the rest bytes in order.
	putUint32(g[0:], uint32(d1))
	putUint16(g[4:], uint16(d2))
	putUint16(g[6:], uint16(d3))
	rest := parts[3] + parts[4]
	for i := 0; i < 8; i++ {
		b, err := strconv.ParseUint(rest[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, invalid("GUID %q", s)
		}
		g[8+i] = byte(b)
	}
	return &g, nil
}

func (g *GUID) String() string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", getUint32(g[0:]), getUint16(g[4:]), getUint16(g[6:]), g[8:10], g[10:16])
}

// String writes the descriptor as SDDL, the way Windows renders it: SIDs
// with an alias as the alias, rights that are one code or single bits as
// codes, other rights in hexadecimal.
func (d *Descriptor) String() string {
	var b strings.Builder
	if d.Owner != nil {
		b.WriteString("O:" + d.Owner.String())
	}
	if d.Group != nil {
		b.WriteString("G:" + d.Group.String())
	}
	if d.DACL.Present {
		b.WriteString("D:")
		d.writeACL(&b, d.DACL, 0)
	}
	if d.SACL.Present {
		b.WriteString("S:")
		d.writeACL(&b, d.SACL, controlSACLFlagsShift)
	}
	return b.String()
}

func (d *Descriptor) writeACL(b *strings.Builder, acl ACL, shift uint) {
	if d.Control&(controlDACLProtected<<shift) != 0 {
		b.WriteString("P")
	}
	if d.Control&(controlDACLAutoInheritReq<<shift) != 0 {
		b.WriteString("AR")
	}
	if d.Control&(controlDACLAutoInherited<<shift) != 0 {
		b.WriteString("AI")
	}
	if acl.Null {
		b.WriteString("NO_ACCESS_CONTROL")
		return
	}
	for _, a := range acl.ACEs {
		b.WriteByte('(')
		for _, t := range aceTypeNames {
			if t.typ == a.Type {
				b.WriteString(t.name)
			}
		}
		b.WriteByte(';')
		for _, fl := range aceFlagNames {
			if a.Flags&fl.bit != 0 {
				b.WriteString(fl.name)
			}
		}
		b.WriteByte(';')
		if a.Type == aceMandatoryLabel {
			b.WriteString(formatLabelRights(a.Mask))
		} else {
			b.WriteString(formatRights(a.Mask))
		}
		b.WriteByte(';')
		if a.ObjectType != nil {
			b.WriteString(a.ObjectType.String())
		}
		b.WriteByte(';')
		if a.InheritedObjectType != nil {
			b.WriteString(a.InheritedObjectType.String())
		}
		b.WriteByte(';')
		b.WriteString(a.SID.String())
		b.WriteByte(')')
	}
}

// formatLabelRights writes a mandatory label's policy bits as NR, NW and
// NX, the codes SDDL uses for them.
func formatLabelRights(mask uint32) string {
	if mask&^7 != 0 || mask == 0 {
		return "0x" + strconv.FormatUint(uint64(mask), 16)
	}
	var b strings.Builder
	for i, code := range []string{"NW", "NR", "NX"} {
		if mask&[]uint32{2, 1, 4}[i] != 0 {
			b.WriteString(code)
		}
	}
	return b.String()
}

func formatRights(mask uint32) string {
	for _, r := range wholeRights {
		if r.mask == mask {
			return r.name
		}
	}
	var b strings.Builder
	rest := mask
	for _, r := range bitRights {
		if rest&r.mask != 0 {
			b.WriteString(r.name)
			rest &^= r.mask
		}
	}
	if rest != 0 || mask == 0 {
		return "0x" + strconv.FormatUint(uint64(mask), 16)
	}
	return b.String()
}
