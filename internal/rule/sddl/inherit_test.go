package sddl

import "testing"

// TestInherit checks Inherit against the outcomes "ACE Inheritance Rules"
// and "Automatic Propagation of Inheritable ACEs" describe for each flag
// combination, for a file and for a directory.
func TestInherit(t *testing.T) {
	const explicit = "O:BAG:SYD:(A;;FA;;;S-1-5-21-1-2-3-1001)"
	cases := []struct {
		name, child, parent string
		container           bool
		want                string
	}{
		{"no parent", explicit, "", false, "O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)"},
		{"object inherit to a file", explicit, "O:SYG:SYD:(A;OI;FR;;;BU)", false,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;ID;FR;;;BU)"},
		{"object inherit through a directory", explicit, "O:SYG:SYD:(A;OI;FR;;;BU)", true,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;OIIOID;FR;;;BU)"},
		{"container inherit skips a file", explicit, "O:SYG:SYD:(A;CI;FR;;;BU)", false,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)"},
		{"both to a directory", explicit, "O:SYG:SYD:(A;OICI;FA;;;SY)(A;OICI;0x1200a9;;;BU)", true,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;OICIID;FA;;;SY)(A;OICIID;0x1200a9;;;BU)"},
		{"both to a file", explicit, "O:SYG:SYD:(A;OICI;FA;;;SY)", false,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;ID;FA;;;SY)"},
		{"no propagate stops at the child", explicit, "O:SYG:SYD:(A;OICINP;FA;;;SY)", true,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;ID;FA;;;SY)"},
		{"inherit only applies below", explicit, "O:SYG:SYD:(A;CIIO;FA;;;SY)", true,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;CIID;FA;;;SY)"},
		{"not inheritable", explicit, "O:SYG:SYD:(A;;FA;;;SY)", true,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)"},
		{"creator owner on a file", explicit, "O:SYG:SYD:(A;OICIIO;FA;;;CO)", false,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;ID;FA;;;BA)"},
		{"creator owner on a directory", explicit, "O:SYG:SYD:(A;OICIIO;FA;;;CO)", true,
			"O:BAG:SYD:AI(A;;FA;;;S-1-5-21-1-2-3-1001)(A;ID;FA;;;BA)(A;OICIIOID;FA;;;CO)"},
		{"protected child", "O:BAG:SYD:P(A;;FA;;;BA)", "O:SYG:SYD:(A;OICI;FA;;;SY)", true,
			"O:BAG:SYD:PAI(A;;FA;;;BA)"},
		{"the child's own inherited ACEs are replaced", "O:BAG:SYD:(A;;FA;;;BA)(A;ID;FR;;;WD)", "O:SYG:SYD:(A;OICI;FA;;;SY)", false,
			"O:BAG:SYD:AI(A;;FA;;;BA)(A;ID;FA;;;SY)"},
		{"null DACL", "O:BAG:SYD:NO_ACCESS_CONTROL", "O:SYG:SYD:(A;OICI;FA;;;SY)", false,
			"O:BAG:SYD:NO_ACCESS_CONTROL"},
		{"SACL kept", "O:BAG:SYD:(A;;FA;;;BA)S:(AU;SAFA;FA;;;WD)", "", false,
			"O:BAG:SYD:AI(A;;FA;;;BA)S:(AU;SAFA;FA;;;WD)"},
	}
	for _, c := range cases {
		child, err := Parse(c.child)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var parent *Descriptor
		if c.parent != "" {
			if parent, err = Parse(c.parent); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		if got := Inherit(child, parent, c.container).String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		if again := Inherit(child, parent, c.container).String(); again != c.want {
			t.Errorf("%s: Inherit changed its input: %s", c.name, again)
		}
	}
}
