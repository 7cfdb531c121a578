package file

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestParsePath(t *testing.T) {
	cases := []struct {
		in       string
		keepDots bool
		want     string // the path as kept, or the error code
		key      string
	}{
		{"", false, "", ""},
		{"a", false, "a", "A"},
		{"Dir/Sub/File.TXT", false, "Dir/Sub/File.TXT", "DIR/SUB/FILE.TXT"},
		{"dir/", false, "dir", "DIR"},
		{"name.", false, "name", "NAME"},
		{"name.", true, "name.", "NAME."},
		{"...", false, azerr.InvalidResourceName, ""},
		{"a//b", false, azerr.InvalidResourceName, ""},
		{"a/../b", false, azerr.InvalidResourceName, ""},
		{"a\\b", false, azerr.InvalidResourceName, ""},
		{"a:b", false, azerr.InvalidResourceName, ""},
		{"nul", false, azerr.InvalidResourceName, ""},
		{"COM9/x", false, azerr.InvalidResourceName, ""},
		{"tab\tname", false, azerr.InvalidResourceName, ""},
		{"bad\xffutf8", false, azerr.InvalidResourceName, ""},
		{strings.Repeat("x", 255), false, strings.Repeat("x", 255), strings.Repeat("X", 255)},
		{strings.Repeat("x", 256), false, azerr.InvalidFileOrDirectoryPathName, ""},
		{strings.Repeat("d/", 250) + "f", false, strings.Repeat("d/", 250) + "f", strings.Repeat("D/", 250) + "F"},
		{strings.Repeat("d/", 251) + "f", false, azerr.InvalidFileOrDirectoryPathName, ""},
		{strings.Repeat("é", 2049), false, azerr.InvalidFileOrDirectoryPathName, ""},
	}
	for _, c := range cases {
		p, err := parsePath(c.in, c.keepDots)
		if err != nil {
			if !azerr.Is(err, c.want) {
				t.Errorf("parsePath(%q) = %v, want %s", c.in, err, c.want)
			}
			continue
		}
		if p.String() != c.want || p.key() != c.key {
			t.Errorf("parsePath(%q) = %q key %q, want %q key %q", c.in, p.String(), p.key(), c.want, c.key)
		}
	}
	p, _ := parsePath("a/b/c", false)
	if p.parentKey() != "A/B" || p.parent().String() != "a/b" || p.name() != "c" || !p.within(p.parent()) || p.parent().within(p) {
		t.Errorf("path helpers: parent %q %q name %q", p.parentKey(), p.parent().String(), p.name())
	}
}

func TestParseAttributes(t *testing.T) {
	cases := []struct {
		raw  string
		dir  bool
		want string
		bad  bool
	}{
		{"None", false, "Archive", false},
		{"None", true, "Directory", false},
		{"ReadOnly|Hidden", false, "ReadOnly | Hidden", false},
		{"readonly | archive", false, "ReadOnly | Archive", false},
		{"Hidden", true, "Hidden | Directory", false},
		{"Directory", false, "", true},
		{"None|Hidden", false, "", true},
		{"Sparse", false, "", true},
		{"", false, "", true},
	}
	for _, c := range cases {
		a, err := parseAttributes(c.raw, c.dir)
		if c.bad {
			if err == nil {
				t.Errorf("parseAttributes(%q) accepted", c.raw)
			}
			continue
		}
		if err != nil || a.String() != c.want {
			t.Errorf("parseAttributes(%q, dir=%v) = %q, %v; want %q", c.raw, c.dir, a.String(), err, c.want)
		}
	}
}

func TestSMBRequestApply(t *testing.T) {
	now := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	set := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("x-ms-file-creation-time", set.Format(time.RFC3339Nano))
	h.Set("x-ms-file-last-write-time", "preserve")
	req, err := parseSMBRequest(h, false)
	if err != nil {
		t.Fatal(err)
	}
	p := smbProps{Attrs: attrReadOnly, Created: now.Add(-time.Hour), Written: now.Add(-2 * time.Hour), Changed: now.Add(-3 * time.Hour)}
	req.apply(&p, false, false, now)
	if !p.Created.Equal(set) || !p.Written.Equal(now.Add(-2*time.Hour)) || !p.Changed.Equal(now) || p.Attrs != attrReadOnly {
		t.Errorf("set applied: %+v", p)
	}
	var fresh smbProps
	req.apply(&fresh, false, true, now)
	if !fresh.Written.Equal(now) || fresh.Attrs != attrArchive {
		t.Errorf("create applied: %+v", fresh)
	}
	h.Set("x-ms-file-change-time", "yesterday")
	if _, err := parseSMBRequest(h, false); !azerr.Is(err, azerr.InvalidHeaderValue) {
		t.Errorf("bad time accepted: %v", err)
	}
}

func TestValidSDDL(t *testing.T) {
	good := []string{
		defaultPermission,
		"O:BAG:SYD:(A;;FA;;;BA)",
		"O:S-1-5-21-1-2-3-500G:S-1-5-21-1-2-3-513D:P(A;OICI;0x1200a9;;;BU)S:(AU;SA;FA;;;WD)",
		"O:BAG:BAD:",
	}
	bad := []string{"", "D:(A;;FA;;;BA)", "G:BAO:BAD:(A;;FA;;;BA)", "O:BAG:BAD:(A;;FA)", "O:xxG:BAD:",
		"O:BAG:BA", "O:BAG:BAD:(A;;FA;;;BA", "O:BAO:BAG:BAD:", "not sddl"}
	for _, s := range good {
		if !validSDDL(s) {
			t.Errorf("rejected %q", s)
		}
	}
	for _, s := range bad {
		if validSDDL(s) {
			t.Errorf("accepted %q", s)
		}
	}
}

func TestByteRange(t *testing.T) {
	cases := []struct {
		raw        string
		size       int64
		start, end int64
		code       string
	}{
		{"bytes=0-9", 100, 0, 10, ""},
		{"bytes=90-200", 100, 90, 100, ""},
		{"bytes=10-", 100, 10, 100, ""},
		{"bytes=100-", 100, 0, 0, azerr.InvalidRange},
		{"bytes=5-4", 100, 0, 0, "parse"},
		{"bytes=-5", 100, 0, 0, "parse"},
		{"items=0-1", 100, 0, 0, "parse"},
	}
	for _, c := range cases {
		br, err := parseByteRange(c.raw)
		if err != nil {
			if c.code != "parse" {
				t.Errorf("%s: parse error %v", c.raw, err)
			}
			continue
		}
		start, end, err := br.clip(c.size)
		if c.code != "" {
			if !azerr.Is(err, c.code) {
				t.Errorf("%s: %v, want %s", c.raw, err, c.code)
			}
			continue
		}
		if err != nil || start != c.start || end != c.end {
			t.Errorf("%s: [%d,%d) %v, want [%d,%d)", c.raw, start, end, err, c.start, c.end)
		}
	}
}

// validSDDL reports whether a request's SDDL permission would be accepted.
func validSDDL(s string) bool {
	_, err := parsePermission(s, formatSDDL)
	return err == nil
}
