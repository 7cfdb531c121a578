package posixacl

import (
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Perm is one class's rights: Read=4, Write=2, Execute=1, the numeric
// short form of "Access control lists (ACLs) in Azure Data Lake Storage",
// section "Short forms for permissions".
type Perm uint8

// The three rights and their union.
const (
	Execute Perm = 1
	Write   Perm = 2
	Read    Perm = 4
	All          = Read | Write | Execute
)

// String is the short form: "rwx", "r-x", "---".
func (p Perm) String() string {
	b := []byte("---")
	for i, bit := range []Perm{Read, Write, Execute} {
		if p&bit != 0 {
			b[i] = "rwx"[i]
		}
	}
	return string(b)
}

// Has reports whether p grants every right of want.
func (p Perm) Has(want Perm) bool { return p&want == want }

// parsePerm reads a three-character short form: each place is its letter
// or '-' (Path - Update, x-ms-acl: "the permission field is a 3-character
// sequence").
func parsePerm(s string) (Perm, bool) {
	if len(s) != 3 {
		return 0, false
	}
	var p Perm
	for i, bit := range []Perm{Read, Write, Execute} {
		switch s[i] {
		case "rwx"[i]:
			p |= bit
		case '-':
		default:
			return 0, false
		}
	}
	return p, true
}

// Mode is a path's permission bits: the owner's, owning group's and
// other's rights (0o777) and the sticky bit (0o1000), as x-ms-permissions
// and x-ms-umask carry them.
type Mode uint16

// The sticky bit and the bits a Mode may hold.
const (
	Sticky  Mode = 0o1000
	modeAll Mode = 0o1777
)

// Defaults of Path - Create (x-ms-umask): a new file starts from 0666 and
// a new directory from 0777, and the umask is 0027 unless the request
// names one.
const (
	DefaultFileMode      Mode = 0o666
	DefaultDirectoryMode Mode = 0o777
	DefaultUmask         Mode = 0o027
)

// NewMode assembles a Mode from the three classes.
func NewMode(owner, group, other Perm, sticky bool) Mode {
	m := Mode(owner&All)<<6 | Mode(group&All)<<3 | Mode(other&All)
	if sticky {
		m |= Sticky
	}
	return m
}

// Owner, Group and Other are the rights of each class.
func (m Mode) Owner() Perm { return Perm(m>>6) & All }

// Group is the owning group's class (the mask when the ACL has one).
func (m Mode) Group() Perm { return Perm(m>>3) & All }

// Other is the rights of everyone not named.
func (m Mode) Other() Perm { return Perm(m) & All }

// IsSticky reports the sticky bit.
func (m Mode) IsSticky() bool { return m&Sticky != 0 }

// Octal is the 4-digit octal form, "0750" or "1777".
func (m Mode) Octal() string {
	const digits = "01234567"
	m &= modeAll
	return string([]byte{digits[m>>9], digits[m>>6&7], digits[m>>3&7], digits[m&7]})
}

// Symbolic is the form Get Properties answers in x-ms-permissions:
// "rwxr-x---", the sticky bit in other's execute place as 't' (with
// execute) or 'T' (without), and a trailing '+' when extended is true,
// that is when the path has an ACL beyond its three base entries (the form
// the SDKs' PathPermissions reads: "rwxrwxrwt+").
func (m Mode) Symbolic(extended bool) string {
	s := []byte(m.Owner().String() + m.Group().String() + m.Other().String())
	if m.IsSticky() {
		s[8] = 'T'
		if m.Other().Has(Execute) {
			s[8] = 't'
		}
	}
	if extended {
		s = append(s, '+')
	}
	return string(s)
}

// ParsePermissions reads x-ms-permissions: 4-digit octal ("0766", "1777";
// the first digit is the sticky bit, 0 or 1) or symbolic ("rwxrw-rw-",
// with 't' or 'T' in the last place for the sticky bit and an optional
// trailing '+', which Get Properties adds and carries no right), per Path -
// Create and Path - Update ("Both symbolic (rwxrw-rw-) and 4-digit octal
// notation (e.g. 0766) are supported"). Anything else is 400
// InvalidPermission, "The permission value is invalid.", as the service
// answers SetPermissions("asdf") in the .NET SDK's recorded tests.
func ParsePermissions(s string) (Mode, error) {
	if m, ok := parseOctal(s); ok && m&^modeAll == 0 {
		return m, nil
	}
	if m, ok := parseSymbolic(strings.TrimSuffix(s, "+")); ok {
		return m, nil
	}
	return 0, invalidPermission()
}

// ParseUmask reads x-ms-umask, which Path - Create takes "in 4-digit octal
// notation (e.g. 0766)"; it restricts the owner, group and other bits (and
// the sticky bit, its first digit). A malformed value is 400
// InvalidHeaderValue naming the header.
func ParseUmask(s string) (Mode, error) {
	m, ok := parseOctal(s)
	if !ok || m&^modeAll != 0 {
		return 0, azerr.InvalidHeader("x-ms-umask", s)
	}
	return m, nil
}

// parseOctal reads exactly four octal digits.
func parseOctal(s string) (Mode, bool) {
	if len(s) != 4 {
		return 0, false
	}
	var m Mode
	for i := range len(s) {
		if s[i] < '0' || s[i] > '7' {
			return 0, false
		}
		m = m<<3 | Mode(s[i]-'0')
	}
	return m, true
}

// parseSymbolic reads nine characters, three short forms, where the last
// may be 't' (sticky and execute) or 'T' (sticky only).
func parseSymbolic(s string) (Mode, bool) {
	if len(s) != 9 {
		return 0, false
	}
	sticky := false
	last := []byte(s[6:])
	switch last[2] {
	case 't':
		sticky, last[2] = true, 'x'
	case 'T':
		sticky, last[2] = true, '-'
	}
	owner, ok1 := parsePerm(s[0:3])
	group, ok2 := parsePerm(s[3:6])
	other, ok3 := parsePerm(string(last))
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	return NewMode(owner, group, other, sticky), true
}

// Apply is the mode Path - Create gives a new path when its parent has no
// default ACL: "The resulting permission is given by p bitwise-and ^u,
// where p is the permission and u is the umask" (x-ms-umask).
func (m Mode) Apply(umask Mode) Mode { return m &^ umask & modeAll }
