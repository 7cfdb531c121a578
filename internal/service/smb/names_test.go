package smb_test

import (
	"slices"
	"testing"
)

const (
	fileCreate        = 2 // CreateDisposition FILE_CREATE
	fileOpenIf        = 3
	statusNameInvalid = 0xC0000033 // STATUS_OBJECT_NAME_INVALID
)

// TestCreateRefusesInvalidNames: a CREATE of a name holding a character
// MS-FSCC 2.1.5.2 forbids in file names is STATUS_OBJECT_NAME_INVALID, as
// on Windows: `/` is such a character, not a separator, and the wildcards
// a QUERY_DIRECTORY pattern may hold are not names.
func TestCreateRefusesInvalidNames(t *testing.T) {
	in, sh := startWithShare(t)
	c := dialRaw(t, in.SMBAddr)
	if st, _ := c.send(request{cmd: 5, body: openRequest("a", 0x80, 7, fileCreate, 0x1)}); st[0] != 0 {
		t.Fatalf("mkdir a: %#x", st[0])
	}
	for _, name := range []string{"a/b", "b/", "x*y", "x?y", "x<y", "x>y", `x"y`, "x|y", "x\x01y", "x\x1fy", `a\..`, " "} {
		st, _ := c.send(request{cmd: 5, body: openRequest(name, 0x12019f, 7, fileCreate, 0x40)})
		if st[0] != statusNameInvalid {
			t.Errorf("CREATE %q: %#x, want STATUS_OBJECT_NAME_INVALID", name, st[0])
		}
	}
	if names := listNames(t, sh); len(names) != 0 {
		t.Errorf("files created from invalid names: %q", names)
	}
}

// TestTrailingSpacesAndDotsDropped: each component of a name loses its
// trailing spaces and dots, as Windows drops them: "a.txt  " is created
// and listed as "a.txt", and "d. \b.txt ." names "d\b.txt".
func TestTrailingSpacesAndDotsDropped(t *testing.T) {
	in, sh := startWithShare(t)
	c := dialRaw(t, in.SMBAddr)
	for _, step := range []struct {
		name       string
		options    uint32
		wantAction uint32
	}{
		{"a.txt  ", 0x40, 2}, // created
		{"a.txt", 0x40, 1},   // opened: the same file
		{"d. ", 0x1, 2},
		{`d\b.txt .`, 0x40, 2},
		{`d \b.txt`, 0x40, 1},
	} {
		st, msgs := c.send(request{cmd: 5, body: openRequest(step.name, 0x80, 7, fileOpenIf, step.options)})
		if st[0] != 0 {
			t.Fatalf("CREATE %q: %#x", step.name, st[0])
		}
		if action := le.Uint32(msgs[0][64+4:]); action != step.wantAction {
			t.Errorf("CREATE %q: action %d, want %d", step.name, action, step.wantAction)
		}
	}
	if names := listNames(t, sh); !slices.Equal(names, []string{"a.txt"}) {
		t.Errorf("REST lists %q, want [a.txt]", names)
	}
	if _, err := sh.NewDirectoryClient("d").NewFileClient("b.txt").GetProperties(ctx, nil); err != nil {
		t.Errorf("d/b.txt over REST: %v", err)
	}
}

// TestRenameRefusesInvalidNames: a rename's target is judged as a
// CREATE's name is.
func TestRenameRefusesInvalidNames(t *testing.T) {
	in, sh := startWithShare(t)
	c := dialRaw(t, in.SMBAddr)
	st, msgs := c.send(request{cmd: 5, body: openRequest("r.txt", 0x110080, 7, fileCreate, 0x40)})
	if st[0] != 0 {
		t.Fatalf("create r.txt: %#x", st[0])
	}
	fileID := msgs[0][64+64 : 64+80]
	for _, to := range []string{"x/y", "x*y", "x\x02y"} {
		if st, _ := c.send(request{cmd: 17, body: renameRequest(fileID, to)}); st[0] != statusNameInvalid {
			t.Errorf("rename to %q: %#x, want STATUS_OBJECT_NAME_INVALID", to, st[0])
		}
	}
	if st, _ := c.send(request{cmd: 17, body: renameRequest(fileID, "s.txt. ")}); st[0] != 0 {
		t.Fatalf("rename to %q: %#x", "s.txt. ", st[0])
	}
	if names := listNames(t, sh); !slices.Equal(names, []string{"s.txt"}) {
		t.Errorf("REST lists %q after the rename, want [s.txt]", names)
	}
}
