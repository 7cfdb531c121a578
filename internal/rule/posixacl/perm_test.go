package posixacl

import (
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// wantCode fails t unless err is the Azure error status/code.
func wantCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	e, ok := azerr.As(err)
	if !ok || e.Status != status || e.Code != code {
		t.Fatalf("error = %v, want %d %s", err, status, code)
	}
}

func TestParsePermissions(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		cite string
	}{
		{"0766", 0o766, "Path - Create x-ms-permissions: 4-digit octal"},
		{"0777", 0o777, ".NET SDK recorded SetPermissionsAsync"},
		{"1777", 0o1777, "first octal digit is the sticky bit (PathPermissions 1777)"},
		{"rwxrw-rw-", 0o766, "Path - Create x-ms-permissions: symbolic"},
		{"rwx-w----", 0o720, ".NET SDK recorded CreateAsync_PermissionAndUmask answer"},
		{"rwxrwxrwt", 0o1777, "sticky with other's execute"},
		{"rwxr-x--T", 0o1750, "sticky without other's execute"},
		{"rwxrwxrwx+", 0o777, "Get Properties' '+' for an extended ACL"},
		{"rwxrwxrwt+", 0o1777, "sticky and '+'"},
		{"---------", 0, "no permissions (short form 0 is ---)"},
	} {
		got, err := ParsePermissions(c.in)
		if err != nil || got != c.want {
			t.Errorf("%s: ParsePermissions(%q) = %o, %v; want %o", c.cite, c.in, got, err, c.want)
		}
	}
}

func TestParsePermissionsRefusesMalformed(t *testing.T) {
	// The .NET SDK's recorded SetPermissionsAsync_Error sends "asdf" and
	// reads 400 InvalidPermission "The permission value is invalid.".
	for _, in := range []string{"asdf", "", "777", "07777", "2777", "0778", "rwxrwxrw", "rwxrwxrwxx", "rwtrwxrwx", "RWXRWXRWX", "rwxrwxrwx++", "+"} {
		_, err := ParsePermissions(in)
		wantCode(t, err, http.StatusBadRequest, CodeInvalidPermission)
		if e, _ := azerr.As(err); e.Message != "The permission value is invalid." {
			t.Errorf("ParsePermissions(%q) message %q", in, e.Message)
		}
	}
}

func TestModeSymbolic(t *testing.T) {
	for _, c := range []struct {
		m        Mode
		extended bool
		want     string
	}{
		{0o750, false, "rwxr-x---"},
		{0o640, false, "rw-r-----"},
		{0o1777, false, "rwxrwxrwt"},
		{0o1776, false, "rwxrwxrwT"},
		{0o777, true, "rwxrwxrwx+"},
		{0o1777, true, "rwxrwxrwt+"},
	} {
		if got := c.m.Symbolic(c.extended); got != c.want {
			t.Errorf("%o.Symbolic(%v) = %q, want %q", c.m, c.extended, got, c.want)
		}
	}
	if got := Mode(0o1750).Octal(); got != "1750" {
		t.Errorf("Octal = %q", got)
	}
}

func TestParseUmask(t *testing.T) {
	// x-ms-umask: "The umask must be specified in 4-digit octal notation
	// (e.g. 0766)."
	if m, err := ParseUmask("0057"); err != nil || m != 0o057 {
		t.Fatalf("ParseUmask(0057) = %o, %v", m, err)
	}
	for _, in := range []string{"057", "", "0o57", "abcd", "0080", "rwxrwxrwx", "9000"} {
		_, err := ParseUmask(in)
		wantCode(t, err, http.StatusBadRequest, azerr.InvalidHeaderValue)
	}
}

func TestModeApplyUmask(t *testing.T) {
	// x-ms-umask: "if p is 0777 and u is 0057, then the resulting
	// permission is 0720"; the default umask 0027 makes 0666 and 0777
	// 0640 and 0750, the root directory's documented defaults (section
	// "The mask").
	for _, c := range []struct{ p, u, want Mode }{
		{0o777, 0o057, 0o720},
		{DefaultFileMode, DefaultUmask, 0o640},
		{DefaultDirectoryMode, DefaultUmask, 0o750},
		{0o1777, 0o1000, 0o777},
	} {
		if got := c.p.Apply(c.u); got != c.want {
			t.Errorf("%o & ^%o = %o, want %o", c.p, c.u, got, c.want)
		}
	}
}
