package config

import (
	"os"
	"path/filepath"
)

// AzuriteDataFolder is where Lazuli keeps its own files when its data
// folder holds an Azurite workspace: a subfolder of it, so that Azurite's
// files are never written.
const AzuriteDataFolder = "lazuli-data"

// AdoptAzurite finds the Azurite workspace lazuli serve imports at start,
// and returns its folder ("" for none). --location naming a folder that
// holds Azurite's databases moves Lazuli's own files into its
// lazuli-data subfolder; so does the default ./lazuli-data when the
// current folder holds them, and --location naming that subfolder again.
// Nothing is adopted with --inMemoryPersistence, which Azurite's workspace
// would not survive either.
func (c *Config) AdoptAzurite() string {
	if c.InMemory {
		return ""
	}
	if HoldsAzurite(c.Location) {
		dir := c.Location
		c.Location = filepath.Join(dir, AzuriteDataFolder)
		return dir
	}
	if parent := filepath.Dir(filepath.Clean(c.Location)); filepath.Base(c.Location) == AzuriteDataFolder && HoldsAzurite(parent) {
		return parent
	}
	return ""
}

// HoldsAzurite reports whether dir holds one of Azurite's LokiJS
// databases (__azurite_db_blob__.json and its siblings).
func HoldsAzurite(dir string) bool {
	for _, service := range []string{"blob", "queue", "table"} {
		if _, err := os.Stat(filepath.Join(dir, "__azurite_db_"+service+"__.json")); err == nil {
			return true
		}
	}
	return false
}
