package lazuli_test

import (
	"os/exec"
	"strings"
	"testing"
)

// testOnlyModules are libraries the tests and the bench command's optional
// SDK driver use that the server binary must not carry: the Azure SDKs
// (a client, not what a server is built from) and the browser driver.
var testOnlyModules = []string{
	"github.com/Azure/azure-sdk-for-go/",
	"github.com/chromedp/",
}

// TestServerBinaryLeavesOutTestLibraries lists what `go build ./cmd/lazuli`
// links and fails on a package of a test-only module.
func TestServerBinaryLeavesOutTestLibraries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", "./cmd/lazuli").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, mod := range testOnlyModules {
			if strings.HasPrefix(pkg, mod) {
				t.Errorf("the server binary links %s", pkg)
			}
		}
	}
}
