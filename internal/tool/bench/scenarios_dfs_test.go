package bench

import (
	"context"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// startHNSLazuli is Lazuli serving the development account with a
// hierarchical namespace (--hnsAccounts devstoreaccount1).
func startHNSLazuli(t *testing.T) Target {
	t.Helper()
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Clock: clock.Real{},
		Configure: func(c *config.Config) { c.HNSAccounts = []string{"devstoreaccount1"} }})
	target, err := ParseConnectionString("lazuli", in.ConnectionString)
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// dfsTestOptions build a tree of 1,500 files in two subdirectories, so
// that both hold files.
func dfsTestOptions() Options {
	opts := testOptions(false)
	opts.ListBlobs = 1500
	return opts
}

// TestDFSScenarios runs each dfs scenario briefly on an account with a
// hierarchical namespace: it is not skipped and every operation succeeds
// (dfs-list-paths fails an operation that does not list every path).
func TestDFSScenarios(t *testing.T) {
	target := startHNSLazuli(t)
	for _, name := range []string{"dfs-rename-tree", "dfs-list-paths", "dfs-delete-tree"} {
		r := runUntilOps(t, target, name, dfsTestOptions())
		if r.Skipped != "" || r.Ops == 0 || len(r.Errors) > 0 {
			t.Errorf("%s: %d ops, errors %v, skipped %q", name, r.Ops, r.Errors, r.Skipped)
		}
		if name == "dfs-delete-tree" && r.Ops != 1 {
			t.Errorf("dfs-delete-tree: %d deletes, want one", r.Ops)
		}
	}
}

// setUpScenario prepares scenario name on target as Run does, for one
// worker, and returns its env and op.
func setUpScenario(t *testing.T, target Target, name string, opts Options) (*env, op) {
	t.Helper()
	s, _ := scenarioByName(name)
	e := &env{opts: opts, prefix: s.shortName() + randomHex(4), workers: 1}
	setup, err := e.connect(target, s, 8)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	do, cleanup, err := setup(ctx, e)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	t.Cleanup(func() { cleanup(ctx) })
	return e, do
}

// TestDFSDeleteTreeFollowsContinuations deletes a tree larger than one
// Path - Delete removes (10,000 paths): the operation follows
// x-ms-continuation until the filesystem is empty.
func TestDFSDeleteTreeFollowsContinuations(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes 10,050 blobs; skipped under -short and the race detector")
	}
	opts := dfsTestOptions()
	opts.ListBlobs = 10050
	e, do := setUpScenario(t, startHNSLazuli(t), "dfs-delete-tree", opts)
	ctx := context.Background()
	if n, _, err := listPaths(ctx, e.c, e.prefix, "", 5000); err != nil || n != 10050+11+1 {
		t.Fatalf("before the delete: %d paths, %v; want %d", n, err, 10050+11+1)
	}
	if _, err := do(ctx, 0, measuredSeq); err != nil {
		t.Fatal(err)
	}
	if n, _, err := listPaths(ctx, e.c, e.prefix, "", 5000); err != nil || n != 0 {
		t.Fatalf("after the delete: %d paths, %v; want none", n, err)
	}
}

// TestDFSRenameMovesTree checks what one dfs-rename-tree operation does:
// every path of the tree is then under the other name, and the next
// operation brings them back.
func TestDFSRenameMovesTree(t *testing.T) {
	e, do := setUpScenario(t, startHNSLazuli(t), "dfs-rename-tree", dfsTestOptions())
	ctx := context.Background()
	filesystem := e.prefix
	want := dfsTree{files: 1500, dirs: 2}.paths()
	for i, top := range []string{"tree-b", "tree-a"} {
		if _, err := do(ctx, 0, i); err != nil {
			t.Fatalf("rename %d: %v", i, err)
		}
		n, _, err := listPaths(ctx, e.c, filesystem, "", 7)
		if err != nil {
			t.Fatal(err)
		}
		under, _, err := listPaths(ctx, e.c, filesystem, top, 5000)
		if err != nil {
			t.Fatal(err)
		}
		if n != want || under != want-1 {
			t.Errorf("after rename %d: %d paths in the filesystem, %d under %s; want %d and %d", i, n, under, top, want, want-1)
		}
	}
}
