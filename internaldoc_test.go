package lazuli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInternalREADMEListsEveryPackage keeps internal/README.md's table of
// layers true: each row's package list must name exactly the folders of
// its layer, so a package added, moved or removed is seen in the map that
// newcomers read first.
func TestInternalREADMEListsEveryPackage(t *testing.T) {
	listed := readmeLayers(t, "internal/README.md")
	layers, err := os.ReadDir("internal")
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range layers {
		if !layer.IsDir() {
			continue
		}
		want, ok := listed[layer.Name()]
		if !ok {
			t.Errorf("internal/README.md has no row for the layer %s/", layer.Name())
			continue
		}
		if got := packageFolders(t, filepath.Join("internal", layer.Name())); !slices.Equal(got, want) {
			t.Errorf("internal/README.md lists %s/ as %v; its folders are %v", layer.Name(), want, got)
		}
		delete(listed, layer.Name())
	}
	for layer := range listed {
		t.Errorf("internal/README.md has a row for %s/, which does not exist", layer)
	}
}

// readmeLayers reads the table rows "| `layer/` | what | a, b, c |" into
// each layer's sorted package names.
func readmeLayers(t *testing.T, path string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string][]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 3 {
			continue
		}
		layer, ok := strings.CutSuffix(strings.Trim(strings.TrimSpace(cells[0]), "`"), "/")
		if !ok {
			continue
		}
		var names []string
		for _, name := range strings.Split(cells[2], ",") {
			names = append(names, strings.TrimSpace(name))
		}
		slices.Sort(names)
		layers[layer] = names
	}
	return layers
}

// packageFolders returns the sorted names of the folders in dir that hold
// Go files, directly or below.
func packageFolders(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && holdsGo(filepath.Join(dir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

func holdsGo(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
