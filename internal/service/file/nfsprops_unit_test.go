package file

import (
	"encoding/hex"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	for raw, want := range map[string]uint16{
		"0644": 0o644, "0755": 0o755, "4755": 0o4755, "7777": 0o7777,
		"rw-r--r--": 0o644, "rwxr-x---": 0o750, "rwsr-xr-x": 0o4755, "rwxr-sr-x": 0o2755,
		"rwxrwxrwt": 0o1777, "rwSr--r--": 0o4644, "rw-r--r-T": 0o1644, "---------": 0,
	} {
		if got, ok := parseMode(raw); !ok || got != want {
			t.Errorf("%s: %04o %v, want %04o", raw, got, ok, want)
		}
	}
	for _, raw := range []string{"644", "0800", "rwxrwxrwz", "rwxrwxrw", "xwrxwrxwr", "rwtr--r--", "12345"} {
		if _, ok := parseMode(raw); ok {
			t.Errorf("%s parsed", raw)
		}
	}
}

// The NFS field is appended after the older fields.
func TestNFSFieldEncoding(t *testing.T) {
	n := goldenNode()
	n.NFS = &nfsProps{Owner: "1000", Group: "7", Mode: 0o644}
	const field = "1e0904313030300137a403" // tag 30, length 9, "1000", "7", 0644
	got := hex.EncodeToString(n.encode())
	if !strings.HasPrefix(got, storedNode) || strings.TrimPrefix(got, storedNode) != field {
		t.Fatalf("encodes to\n%s\nwant the stored record followed by %s", got, field)
	}
	back, err := decodeNode(fromHex(storedNode + field))
	if err != nil || !reflect.DeepEqual(back, n) {
		t.Fatalf("decoded NFS %+v (%v)", back.NFS, err)
	}
}

// A symbolic link stored by a build that gave links the mode of a new file
// (0664, or the x-ms-mode of Create Symbolic Link) answers 0777 as every
// link does, whatever its record holds (the recorded
// TestCreateSymbolicLinkNFS.json answers 0777).
func TestOlderSymlinkRecordAnswersMode0777(t *testing.T) {
	n := goldenNode()
	n.NFS = &nfsProps{Owner: "0", Group: "0", Mode: defaultFileMode, LinkText: "target"}
	stored, err := decodeNode(n.encode())
	if err != nil || stored.NFS == nil || stored.NFS.Mode != defaultFileMode {
		t.Fatalf("the old record decodes to %+v (%v)", stored.NFS, err)
	}
	h := http.Header{}
	setNFSHeaders(h, stored, nfsOnRead)
	if got := h.Get("X-Ms-Mode"); got != "0777" {
		t.Errorf("a link stored with mode 0664 answers x-ms-mode %s, want 0777", got)
	}
}
