package sddl

import (
	"strconv"
	"strings"
)

// SID is a security identifier: revision 1, a 48-bit identifier
// authority and up to 15 sub-authorities.
type SID struct {
	Authority      uint64
	SubAuthorities []uint32
}

// maxSubAuthorities is the most a SID may have.
const maxSubAuthorities = 15

// aliases are the two-letter SID strings of SDDL that need no domain.
var aliases = map[string]string{
	"AA": "S-1-5-32-579", "AC": "S-1-15-2-1", "AN": "S-1-5-7", "AO": "S-1-5-32-548", "AS": "S-1-18-1",
	"AU": "S-1-5-11", "BA": "S-1-5-32-544", "BG": "S-1-5-32-546", "BO": "S-1-5-32-551", "BU": "S-1-5-32-545",
	"CD": "S-1-5-32-574", "CG": "S-1-3-1", "CO": "S-1-3-0", "CY": "S-1-5-32-569", "ED": "S-1-5-9",
	"ER": "S-1-5-32-573", "ES": "S-1-5-32-576", "HA": "S-1-5-32-578", "HI": "S-1-16-12288", "IS": "S-1-5-32-568",
	"IU": "S-1-5-4", "LS": "S-1-5-19", "LU": "S-1-5-32-559", "LW": "S-1-16-4096", "ME": "S-1-16-8192",
	"MP": "S-1-16-8448", "MU": "S-1-5-32-558", "NO": "S-1-5-32-556", "NS": "S-1-5-20", "NU": "S-1-5-2",
	"OW": "S-1-3-4", "PO": "S-1-5-32-550", "PS": "S-1-5-10", "PU": "S-1-5-32-547", "RA": "S-1-5-32-575",
	"RC": "S-1-5-12", "RD": "S-1-5-32-555", "RE": "S-1-5-32-552", "RM": "S-1-5-32-580", "RU": "S-1-5-32-554",
	"SI": "S-1-16-16384", "SO": "S-1-5-32-549", "SS": "S-1-18-2", "SU": "S-1-5-6", "SY": "S-1-5-18",
	"UD": "S-1-5-84-0-0-0-0-0", "WD": "S-1-1-0", "WR": "S-1-5-33",
}

// aliasOf maps a SID string back to its alias, for output.
var aliasOf = func() map[string]string {
	m := make(map[string]string, len(aliases))
	for alias, sid := range aliases {
		m[sid] = alias
	}
	return m
}()

// ParseSID reads "S-1-5-32-544" (the authority in decimal, or hexadecimal
// with 0x when it needs more than 32 bits) or a two-letter alias.
func ParseSID(s string) (SID, error) {
	if len(s) == 2 {
		full, ok := aliases[s]
		if !ok {
			return SID{}, invalid("SID alias %q (unknown, or relative to a domain)", s)
		}
		s = full
	}
	parts := strings.Split(s, "-")
	if len(parts) < 3 || parts[0] != "S" || parts[1] != "1" || len(parts)-3 > maxSubAuthorities {
		return SID{}, invalid("SID %q", s)
	}
	auth, err := strconv.ParseUint(parts[2], 0, 48)
	if err != nil {
		return SID{}, invalid("SID %q", s)
	}
	sid := SID{Authority: auth}
	for _, p := range parts[3:] {
		v, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return SID{}, invalid("SID %q", s)
		}
		sid.SubAuthorities = append(sid.SubAuthorities, uint32(v))
	}
	return sid, nil
}

// text is the SID's S-1-... form.
func (s SID) text() string {
	var b strings.Builder
	b.WriteString("S-1-")
	if s.Authority >= 1<<32 {
		b.WriteString("0x" + strconv.FormatUint(s.Authority, 16))
	} else {
		b.WriteString(strconv.FormatUint(s.Authority, 10))
	}
	for _, v := range s.SubAuthorities {
		b.WriteByte('-')
		b.WriteString(strconv.FormatUint(uint64(v), 10))
	}
	return b.String()
}

// String is the SID's alias when it has one, else its S-1-... form.
func (s SID) String() string {
	t := s.text()
	if alias, ok := aliasOf[t]; ok {
		return alias
	}
	return t
}

func (s SID) binarySize() int { return 8 + 4*len(s.SubAuthorities) }

func (s SID) appendBinary(b []byte) []byte {
	b = append(b, 1, byte(len(s.SubAuthorities)))
	for shift := 40; shift >= 0; shift -= 8 { // big-endian, 48 bits
		b = append(b, byte(s.Authority>>shift))
	}
	for _, v := range s.SubAuthorities {
		b = appendUint32(b, v)
	}
	return b
}

// readSID reads a binary SID at b[off:].
func readSID(b []byte, off int) (SID, int, error) {
	if off < 0 || off+8 > len(b) || b[off] != 1 {
		return SID{}, 0, invalid("SID at %d", off)
	}
	n := int(b[off+1])
	size := 8 + 4*n
	if n > maxSubAuthorities || off+size > len(b) {
		return SID{}, 0, invalid("SID at %d", off)
	}
	var sid SID
	for i := 0; i < 6; i++ {
		sid.Authority = sid.Authority<<8 | uint64(b[off+2+i])
	}
	for i := 0; i < n; i++ {
		sid.SubAuthorities = append(sid.SubAuthorities, getUint32(b[off+8+4*i:]))
	}
	return sid, size, nil
}
