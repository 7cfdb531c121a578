package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/check/s3test"
	"github.com/lazuli-storage/lazuli/internal/tool/dump/dumptest"
)

// TestDumpAndLoadWithContentOnS3 copies a server that keeps its content on
// S3 (--extents) to a new store whose content goes to another S3 prefix:
// dump reads the content where --extents says, load writes it there, the
// copy dumps to the same bytes and serves the same data. Without --extents
// the dump looks beside the store, finds none of the content, and fails
// rather than write a dump without it.
func TestDumpAndLoadWithContentOnS3(t *testing.T) {
	srcExtents := s3test.S3Extents(t)
	dir := t.TempDir()
	srcURL := "sqlite:" + filepath.Join(t.TempDir(), "lazuli.db")
	src := lazulitest.Start(t, lazulitest.Options{Store: srcURL, Extents: srcExtents, Services: services})
	dumptest.Populate(t, src)
	src.Stop()
	s3test.WantObjects(t, srcExtents)

	mustRun(t, 1, "dump", "--store", srcURL, "-o", filepath.Join(dir, "without-extents.dump"))
	first := filepath.Join(dir, "first.dump")
	mustRun(t, 0, "dump", "--store", srcURL, "--extents", srcExtents, "-o", first)

	dstExtents := s3test.S3Extents(t)
	dstURL := "sqlite:" + filepath.Join(dir, "copy", "lazuli.db")
	mustRun(t, 0, "load", "--store", dstURL, "--extents", dstExtents, "-i", first)
	s3test.WantObjects(t, dstExtents)
	second := filepath.Join(dir, "second.dump")
	mustRun(t, 0, "dump", "--store", dstURL, "--extents", dstExtents, "-o", second)
	if a, b := readFile(t, first), readFile(t, second); !bytes.Equal(a, b) {
		t.Fatalf("the copy dumps to %d bytes that differ from the %d of the original", len(b), len(a))
	}
	dumptest.Check(t, lazulitest.Start(t, lazulitest.Options{Store: dstURL, Extents: dstExtents, Services: services}))
}
