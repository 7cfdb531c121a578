package main

import "testing"

// lazuli import takes one source, azurite, one folder and --store in any
// order, and refuses a memory: store, which the import would not outlive.
func TestImportArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"import"}, 2},
		{[]string{"import", "s3", t.TempDir(), "--store", "sqlite:x.db"}, 2},
		{[]string{"import", "azurite", t.TempDir()}, 2},
		{[]string{"import", "azurite", "--store", "sqlite:x.db"}, 2},
		{[]string{"import", "azurite", "a", "b", "--store", "sqlite:x.db"}, 2},
		{[]string{"import", "azurite", t.TempDir(), "--store", "memory:"}, 1},
		{[]string{"import", "azurite", "--store", "memory:", t.TempDir()}, 1},
		{[]string{"import", "azurite", t.TempDir(), "--store", "sqlite:" + t.TempDir() + "/lazuli.db"}, 1}, // no Azurite databases
		{[]string{"import", "azurite", "--help"}, 0},
	} {
		if got := run(c.args); got != c.want {
			t.Errorf("lazuli %v: exit %d, want %d", c.args, got, c.want)
		}
	}
}
