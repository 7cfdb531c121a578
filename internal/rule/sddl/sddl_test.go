package sddl

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// TestBinaryLayout checks one descriptor against the bytes MS-DTYP's
// SECURITY_DESCRIPTOR_RELATIVE, SID, ACL and ACCESS_ALLOWED_ACE structures
// give, laid out as Windows does (owner, group, then the DACL).
func TestBinaryLayout(t *testing.T) {
	d, err := Parse("O:BAG:SYD:(A;;FA;;;BA)")
	if err != nil {
		t.Fatal(err)
	}
	want := "01000480" + "14000000" + "24000000" + "00000000" + "30000000" + // header: control 0x8004, offsets 20, 36, -, 48
		"010200000000000520000000" + "20020000" + // S-1-5-32-544
		"010100000000000512000000" + // S-1-5-18
		"02002000" + "01000000" + // ACL revision 2, size 32, one ACE
		"00001800" + "ff011f00" + "01020000000000052000000020020000" // allowed, size 24, FA, BA
	if got := hex.EncodeToString(d.Binary()); got != want {
		t.Fatalf("binary\n got %s\nwant %s", got, want)
	}
}

func TestRoundTrips(t *testing.T) {
	cases := []struct{ in, out string }{
		{"O:BAG:SYD:(A;;FA;;;BA)", ""},
		{"O:S-1-5-21-1-2-3-500G:S-1-5-21-1-2-3-513D:P(A;OICI;FA;;;SY)(A;OICIIO;GA;;;CO)(D;;FW;;;WD)", ""},
		{"O:BAG:BAD:AI(A;ID;0x1301bf;;;AU)(A;OICIID;0x1200a9;;;BU)", ""},
		{"O:SYG:SYD:PAR(A;;CCDCLCSWRPWPDTLOCRSDRCWDWO;;;SY)", ""},
		{"O:BAG:SYD:(A;;GRGX;;;AU)", "O:BAG:SYD:(A;;GXGR;;;AU)"},
		{"O:BAG:SYD:NO_ACCESS_CONTROL", ""},
		{"O:BAG:SYD:(A;;FR;;;WD)S:(AU;SAFA;FA;;;WD)", ""},
		{"O:BAG:SYD:(A;;0x1f01ff;;;BA)", "O:BAG:SYD:(A;;FA;;;BA)"},
		{"O:S-1-5-32-544G:S-1-5-18D:(A;;FA;;;S-1-1-0)", "O:BAG:SYD:(A;;FA;;;WD)"},
		{"O:BAG:SYD:(OA;;RP;bf967aba-0de6-11d0-a285-00aa003049e2;;AU)", ""},
		{"O:BAG:SYS:(ML;;NW;;;HI)", ""},
		{"O:BAG:SYS:(ML;;NRNWNX;;;LW)", "O:BAG:SYS:(ML;;NWNRNX;;;LW)"},
		{"D:(A;;FA;;;BA)", ""},
		{"O:S-1-0x10000000000-7G:SY", ""},
	}
	for _, c := range cases {
		want := c.out
		if want == "" {
			want = c.in
		}
		d, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := d.String(); got != want {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got, want)
		}
		back, err := FromBinary(d.Binary())
		if err != nil {
			t.Errorf("%q: FromBinary: %v", c.in, err)
			continue
		}
		if got := back.String(); got != want {
			t.Errorf("%q through binary = %q, want %q", c.in, got, want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{
		"", "X:BA", "G:SYO:BA", "O:BAO:BA", "O:DA", "O:S-2-5-18", "O:S-1-5-x", "O:BAD:(A;;FA;;BA)",
		"O:BAD:(Q;;FA;;;BA)", "O:BAD:(A;ZZ;FA;;;BA)", "O:BAD:(A;;ZZ;;;BA)", "O:BAD:(A;;F;;;BA)",
		"O:BAD:(A;;FA;bf967aba-0de6-11d0-a285-00aa003049e2;;BA)", "O:BAD:XX(A;;FA;;;BA)", "O:BAD:(A;;FA;;;BA",
		"O:BAD:NO_ACCESS_CONTROL(A;;FA;;;BA)", "O:" + strings.Repeat("S-1-5", 1) + strings.Repeat("-1", 16),
	} {
		if _, err := Parse(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid", s, err)
		}
	}
	for _, b := range [][]byte{nil, make([]byte, 19), append([]byte{2}, make([]byte, 19)...), append([]byte{1, 0, 0, 0}, make([]byte, 16)...)} {
		if _, err := FromBinary(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("FromBinary(%x) = %v, want ErrInvalid", b, err)
		}
	}
}

func FuzzFromBinary(f *testing.F) {
	d, _ := Parse("O:BAG:SYD:P(A;OICI;FA;;;SY)(D;;FW;;;WD)S:(AU;SA;FA;;;WD)")
	f.Add(d.Binary())
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := FromBinary(b)
		if err != nil {
			return
		}
		// Whatever reads must write back and read again the same.
		again, err := FromBinary(d.Binary())
		if err != nil || again.String() != d.String() {
			t.Fatalf("%x: %q then %q (%v)", b, d.String(), again, err)
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add("O:BAG:SYD:P(A;OICI;FA;;;SY)(D;;FW;;;WD)S:(AU;SA;FA;;;WD)")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(d.String())
		if err != nil || again.String() != d.String() {
			t.Fatalf("%q: %q then %v", s, d.String(), err)
		}
	})
}
