// Package python runs workflows a user's Python code runs with Debian's
// python3-azure against Lazuli: the Data Lake workflows (datalake_test.py)
// on an account with a hierarchical namespace, and the case of metadata
// names on every service (metadata_test.py). The tests skip when
// /usr/bin/python3 or the SDK module they need is missing (.ci/run installs
// python3-azure).
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
	needModules(t, "azure.storage.filedatalake")
	srv := lazulitest.Start(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) {
		c.HNSAccounts = []string{lazulitest.Account}
	}})
	runUnittest(t, "datalake_test", "LAZULI_DATALAKE_BLOB_URL="+srv.BlobURL)
}

// TestMetadataCaseWithPythonSDK runs metadata_test.py over the Blob, Queue
// and File services.
func TestMetadataCaseWithPythonSDK(t *testing.T) {
	needModules(t, "azure.storage.blob", "azure.storage.queue", "azure.storage.fileshare")
	srv := lazulitest.Start(t, lazulitest.Options{InMemory: true})
	runUnittest(t, "metadata_test", "LAZULI_BLOB_URL="+srv.BlobURL, "LAZULI_QUEUE_URL="+srv.QueueURL,
		"LAZULI_FILE_URL="+srv.FileURL)
}

// needModules skips t unless python can import every module.
func needModules(t *testing.T, modules ...string) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s is not installed", python)
	}
	for _, m := range modules {
		if out, err := exec.Command(python, "-c", "import "+m).CombinedOutput(); err != nil {
			t.Skipf("%s is not installed (Debian package python3-azure): %v\n%s", m, err, out)
		}
	}
}

// runUnittest runs module with unittest, the account's name and key and env
// in its environment; any failure or error there fails t.
func runUnittest(t *testing.T, module string, env ...string) {
	t.Helper()
	// The SDK leaves its HTTP sessions to the garbage collector, which
	// unittest's default warning filter would report once per client.
	cmd := exec.Command(python, "-W", "ignore::ResourceWarning", "-m", "unittest", "-v", module)
	cmd.Env = append(append(os.Environ(), "LAZULI_ACCOUNT="+lazulitest.Account, "LAZULI_ACCOUNT_KEY="+lazulitest.Key), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("python3 -m unittest %s:\n%s", module, out)
	if err != nil {
		t.Fatalf("the Python SDK's tests in %s failed: %v", module, err)
	}
}
