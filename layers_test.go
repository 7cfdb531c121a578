package lazuli_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers are internal/'s folders from the top down (internal/README.md
// says what each holds). A package may import its own layer and the ones
// below it.
var layers = []string{"tool", "check", "run", "service", "frame", "rule", "engine", "base"}

const internalPrefix = "github.com/lazuli-storage/lazuli/internal/"

// layerOf is the layer of a path below internal/, or -1.
func layerOf(rel string) int {
	first, _, _ := strings.Cut(rel, "/")
	return slices.Index(layers, first)
}

// TestLayersImportDownward reads the imports of every Go file under
// internal/ and fails on one that reaches a layer above its own, and on a
// folder that belongs to no layer. Test files are exempt: they start whole
// servers (run/config, check/lazulitest) to test a package from outside.
func TestLayersImportDownward(t *testing.T) {
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, "internal"+string(filepath.Separator)))
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if path != "internal" && layerOf(rel) < 0 {
				t.Errorf("internal/%s is in no layer (layers_test.go lists them)", rel)
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		own := layerOf(rel)
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if !strings.HasPrefix(imp, internalPrefix) {
				continue
			}
			to := layerOf(strings.TrimPrefix(imp, internalPrefix))
			if to < own {
				t.Errorf("%s imports %s, a layer above its own (%s)", path, imp, layers[own])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
