package fs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/extenttest"
)

func TestConformance(t *testing.T) {
	extenttest.Run(t, func(t testing.TB) extent.Engine { return mustOpen(t, t.TempDir()) })
}

func mustOpen(t testing.TB, dir string) *Engine {
	t.Helper()
	e, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return e
}

func TestFanoutLayout(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir)
	info, err := e.Write(context.Background(), bytes.NewReader([]byte("hello")), -1)
	if err != nil {
		t.Fatal(err)
	}
	if !validID(info.ID) {
		t.Fatalf("ID %q is not 32 lower-case hex digits", info.ID)
	}
	got, err := os.ReadFile(filepath.Join(dir, info.ID[:2], info.ID[2:4], info.ID))
	if err != nil || string(got) != "hello" {
		t.Fatalf("fan-out file = %q, %v; want \"hello\"", got, err)
	}
}

func TestReopenKeepsExtents(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir)
	info, err := e.Write(context.Background(), bytes.NewReader([]byte("kept")), -1)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	r, err := mustOpen(t, dir).Open(context.Background(), info.ID)
	if err != nil {
		t.Fatalf("Open after reopening the directory: %v", err)
	}
	defer r.Close()
	if r.Size() != 4 {
		t.Fatalf("Size() = %d, want 4", r.Size())
	}
}

func TestOpenRemovesOnlyStaleTemps(t *testing.T) {
	dir := t.TempDir()
	mustOpen(t, dir).Close()
	tmp := filepath.Join(dir, tmpDirName)
	stale := filepath.Join(tmp, "stale.tmp")
	fresh := filepath.Join(tmp, "fresh.tmp")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-staleTempAge - time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	mustOpen(t, dir)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temp file (maybe a write in progress) was removed: %v", err)
	}
}

func TestFailedWritesLeaveNoTempFile(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir)
	_, err := e.Write(context.Background(), bytes.NewReader(make([]byte, 10)), 5)
	if !errors.Is(err, extent.ErrTooLarge) {
		t.Fatalf("Write = %v, want ErrTooLarge", err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, tmpDirName))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("%d files left in tmp after a failed write", len(entries))
	}
}

func TestListSkipsStrayFilesAndReportsMtimeAge(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir)
	info, err := e.Write(context.Background(), bytes.NewReader([]byte("x")), -1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, info.ID[:2], info.ID[2:4], info.ID)
	written := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(path, written, written); err != nil {
		t.Fatal(err)
	}
	strays := []string{
		filepath.Join(dir, "README"),
		filepath.Join(dir, info.ID), // a valid ID outside its fan-out directory
		filepath.Join(dir, tmpDirName, info.ID),
	}
	for _, p := range strays {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	err = e.List(context.Background(), func(id string, age float64) error {
		seen = append(seen, id)
		if age < 7190 || age > 7300 {
			t.Errorf("age = %v s, want about 7200", age)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != info.ID {
		t.Fatalf("List = %v, want only %s", seen, info.ID)
	}
}
