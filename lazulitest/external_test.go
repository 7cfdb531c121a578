package lazulitest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromAnotherModule runs the tests of testdata/usermod, a module of its
// own that requires Lazuli through a replace directive, as a user's module
// would require a release: it proves the package is importable from
// outside the module and works there.
func TestFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs another module's tests")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", "./...")
	cmd.Dir = filepath.Join("testdata", "usermod")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in %s: %v\n%s", cmd.Dir, err, out)
	}
	if !strings.Contains(string(out), "lease state: expired") || !strings.Contains(string(out), "--- PASS: TestLeaseAndRetry") {
		t.Fatalf("the outside test did not run as expected:\n%s", out)
	}
}
