package config

import (
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"strings"
	"testing"
)

// TestDockerfileServesEveryServiceOutside: the container image's command,
// read by the real flag parser, binds every service it EXPOSEs to an
// address reachable from outside the container; a service left on its
// loopback default is unreachable through `docker run -p`.
func TestDockerfileServesEveryServiceOutside(t *testing.T) {
	args := dockerCommand(t, "../../../Dockerfile")
	c, err := Parse(args[1:], func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatalf("the Dockerfile's command %q does not parse: %v", args, err)
	}
	for name, e := range map[string]Endpoint{"blob": c.Blob, "queue": c.Queue, "table": c.Table, "file": c.File, "smb": c.SMB} {
		if loopback(e.Host) {
			t.Errorf("the image serves %s on %s, reachable only from inside the container", name, e.Addr())
		}
	}
}

// dockerCommand is the image's command line: ENTRYPOINT then CMD, each in
// the exec (JSON array) form; the last of each instruction counts, as in
// docker build.
func dockerCommand(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entrypoint, cmd []string
	for _, line := range strings.Split(string(data), "\n") {
		instr, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		var dst *[]string
		switch strings.ToUpper(instr) {
		case "ENTRYPOINT":
			dst = &entrypoint
		case "CMD":
			dst = &cmd
		default:
			continue
		}
		if err := json.Unmarshal([]byte(rest), dst); err != nil {
			t.Fatalf("%s %s: not in the exec form this test reads: %v", instr, rest, err)
		}
	}
	args := append(entrypoint, cmd...)
	if len(args) == 0 {
		t.Fatal("the Dockerfile has no CMD or ENTRYPOINT")
	}
	return args
}

func loopback(host string) bool {
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.IsLoopback()
	}
	return strings.EqualFold(host, "localhost")
}
