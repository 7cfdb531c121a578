package smb_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// tortureSuites are the smbtorture suites run against Lazuli.
var tortureSuites = []string{"smb2.connect", "smb2.read", "smb2.rw", "smb2.credits", "smb2.lock", "smb2.sharemode",
	"smb2.create.delete", "smb2.rename", "smb2.dir", "smb2.compound", "smb2.getinfo"}

// knownFailures reads testdata/smbtorture-known-failures.txt.
func knownFailures(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/smbtorture-known-failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		if strings.HasPrefix(strings.TrimSpace(reason), "*") {
			name += " *"
		}
		known[name] = strings.TrimSpace(reason)
	}
	return known
}

// TestSmbtorture runs the smbtorture suites; every failure must be a
// listed known failure, and every listed failure must still fail.
func TestSmbtorture(t *testing.T) {
	bin, err := exec.LookPath("smbtorture")
	if err != nil {
		t.Skip("smbtorture is not installed (Debian package samba-testsuite)")
	}
	known := knownFailures(t)
	in, _ := startWithShare(t)
	host, port, _ := strings.Cut(in.SMBAddr, ":")
	passed, failed := 0, 0
	for _, suite := range tortureSuites {
		cmd := exec.Command(bin, "//"+host+"/share", "-p", port, "-U", auth.DevAccountName+"%"+auth.DevAccountKey,
			"--target=samba3", suite)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		results, suitePassed := 0, 0
		for _, line := range strings.Split(string(out), "\n") {
			status, rest, ok := strings.Cut(line, ": ")
			if !ok {
				continue
			}
			name := suite + "." + strings.TrimSuffix(strings.TrimSpace(rest), " [")
			switch status {
			case "success":
				results++
				passed++
				suitePassed++
				if _, listed := known[name]; listed {
					t.Errorf("%s now passes: remove it from the known failures", name)
				}
			case "failure", "error":
				results++
				failed++
				if _, listed := known[name]; !listed {
					t.Errorf("%s fails and is not a known failure", name)
				}
			}
		}
		t.Logf("%s: %d passed, %d known failures", suite, suitePassed, results-suitePassed)
		if results == 0 {
			if _, listed := known[suite+" *"]; !listed {
				t.Errorf("%s gave no results:\n%s", suite, out)
			}
		}
	}
	t.Logf("smbtorture: %d passed, %d failed (all known)", passed, failed)
}
