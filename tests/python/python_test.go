// Package python runs the Python SDK's Data Lake workflows
// (datalake_test.py, with Debian's python3-azure) against a Lazuli whose
// account has a hierarchical namespace, as a user's Python code reaches it.
// The test skips when /usr/bin/python3 or azure.storage.filedatalake is
// missing (.ci/run installs python3-azure).
package python

import (
	"os"
	"os/exec"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// python is Debian's interpreter, which python3-azure installs into (a
// python3 earlier in PATH, such as a pyenv shim, may not have it).
const python = "/usr/bin/python3"

// TestDataLakeWithPythonSDK runs datalake_test.py with unittest; any
// failure or error there fails it.
func TestDataLakeWithPythonSDK(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s is not installed", python)
	}
	if out, err := exec.Command(python, "-c", "import azure.storage.filedatalake").CombinedOutput(); err != nil {
		t.Skipf("azure.storage.filedatalake is not installed (Debian package python3-azure): %v\n%s", err, out)
	}
	srv := lazulitest.Start(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) {
		c.HNSAccounts = []string{lazulitest.Account}
	}})
	// The SDK leaves its HTTP sessions to the garbage collector, which
	// unittest's default warning filter would report once per client.
	cmd := exec.Command(python, "-W", "ignore::ResourceWarning", "-m", "unittest", "-v", "datalake_test")
	cmd.Env = append(os.Environ(), "LAZULI_DATALAKE_BLOB_URL="+srv.BlobURL,
		"LAZULI_ACCOUNT="+lazulitest.Account, "LAZULI_ACCOUNT_KEY="+lazulitest.Key)
	out, err := cmd.CombinedOutput()
	t.Logf("python3 -m unittest datalake_test:\n%s", out)
	if err != nil {
		t.Fatalf("the Python SDK's Data Lake tests failed: %v", err)
	}
}
