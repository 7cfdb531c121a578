package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/tool/dump/dumptest"
)

var services = []string{"blob", "queue", "table", "file"}

// TestDumpAndLoadCommands copies a server's data to a new store with the
// two commands, checks that the copy dumps to the same bytes, and serves it.
// (Every engine to every engine is internal/tool/dump's matrix test; this one
// covers the commands themselves.)
func TestDumpAndLoadCommands(t *testing.T) {
	dir := t.TempDir()
	srcURL := "sqlite:" + filepath.Join(t.TempDir(), "lazuli.db")
	src := lazulitest.Start(t, lazulitest.Options{Store: srcURL, Services: services})
	dumptest.Populate(t, src)
	src.Stop()

	first := filepath.Join(dir, "first.dump")
	mustRun(t, 0, "dump", "--store", srcURL, "-o", first)
	dstURL := "sqlite:" + filepath.Join(dir, "copy", "lazuli.db")
	mustRun(t, 0, "load", "--store", dstURL, "-i", first)
	mustRun(t, 1, "load", "--store", dstURL, "-i", first) // not empty any more

	second := filepath.Join(dir, "second.dump")
	mustRun(t, 0, "dump", "--store", dstURL, "-o", second)
	if a, b := readFile(t, first), readFile(t, second); !bytes.Equal(a, b) {
		t.Fatalf("the copy dumps to %d bytes that differ from the %d of the original", len(b), len(a))
	}
	dumptest.Check(t, lazulitest.Start(t, lazulitest.Options{Store: dstURL, Services: services}))
}

func TestDumpAndLoadRefuseBadArguments(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := "sqlite:" + filepath.Join(dir, "missing", "lazuli.db")
	cases := []struct {
		code int
		args []string
	}{
		{2, []string{"dump"}},
		{2, []string{"load", "-i", existing}},
		{2, []string{"dump", "--store", "memory:", "extra"}},
		{2, []string{"dump", "--no-such-flag"}},
		{0, []string{"dump", "-h"}},
		{1, []string{"dump", "--store", "nosuch:x"}},
		{1, []string{"dump", "--store", missing, "-o", filepath.Join(dir, "out")}},
		{1, []string{"dump", "--store", "memory:", "-o", existing}},
		{1, []string{"load", "--store", "memory:", "-i", existing}},
		{1, []string{"load", "--store", "memory:", "-i", filepath.Join(dir, "nosuch")}},
	}
	for _, c := range cases {
		mustRun(t, c.code, c.args...)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Error("dumping a missing sqlite database created it")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Error("a failed dump left its output file")
	}
	if got := readFile(t, existing); string(got) != "keep me" {
		t.Error("a dump overwrote an existing file")
	}
}

func mustRun(t *testing.T, want int, args ...string) {
	t.Helper()
	if got := run(args); got != want {
		t.Fatalf("lazuli %v exited %d, want %d", args, got, want)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRedacted(t *testing.T) {
	for in, want := range map[string]string{
		"sqlite:./lazuli-data/lazuli.db":     "sqlite:./lazuli-data/lazuli.db",
		"memory:":                            "memory:",
		"postgres://lazuli@db:5432/lazuli":   "postgres://lazuli@db:5432/lazuli",
		"postgres://lazuli:s3cret@db/lazuli": "postgres://lazuli:xxxxx@db/lazuli",
	} {
		if got := redacted(in); got != want {
			t.Errorf("redacted(%q) = %q, want %q", in, got, want)
		}
	}
}
