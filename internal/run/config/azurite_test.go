package config

import (
	"os"
	"path/filepath"
	"testing"
)

// An Azurite folder named by --location, the default ./lazuli-data under
// an Azurite folder, and --location naming that lazuli-data subfolder all
// keep Lazuli's files in the subfolder and name the Azurite folder; a
// folder without Azurite's databases, or --inMemoryPersistence, adopts
// nothing.
func TestAdoptAzurite(t *testing.T) {
	az := t.TempDir()
	if err := os.WriteFile(filepath.Join(az, "__azurite_db_queue__.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	data := filepath.Join(az, AzuriteDataFolder)
	for _, c := range []struct {
		location string
		inMemory bool
		wantDir  string
		wantLoc  string
	}{
		{az, false, az, data},
		{data, false, az, data},
		{plain, false, "", plain},
		{filepath.Join(plain, AzuriteDataFolder), false, "", filepath.Join(plain, AzuriteDataFolder)},
		{az, true, "", az},
	} {
		cfg := &Config{Location: c.location, InMemory: c.inMemory}
		if dir := cfg.AdoptAzurite(); dir != c.wantDir || cfg.Location != c.wantLoc {
			t.Errorf("--location %s (in memory %v): adopted %q with location %q, want %q and %q",
				c.location, c.inMemory, dir, cfg.Location, c.wantDir, c.wantLoc)
		}
	}
	// The default location, relative to a current folder holding Azurite's files.
	t.Chdir(az)
	cfg := &Config{Location: "./" + AzuriteDataFolder}
	if dir := cfg.AdoptAzurite(); dir != "." || cfg.Location != "./"+AzuriteDataFolder {
		t.Errorf("default location: adopted %q with location %q", dir, cfg.Location)
	}
}
