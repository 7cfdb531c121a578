package azurite_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// azuriteVersion is the Azurite release the tests write workspaces with,
// from npm; .ci/run installs the same one.
const azuriteVersion = "3.37.0"

// devConnection is the connection string of Azurite's development account
// on the given ports.
func devConnection(blob, queue, table int) string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"+
		"AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"+
		"BlobEndpoint=http://127.0.0.1:%d/devstoreaccount1;QueueEndpoint=http://127.0.0.1:%d/devstoreaccount1;"+
		"TableEndpoint=http://127.0.0.1:%d/devstoreaccount1;", blob, queue, table)
}

// azuriteCommand finds Azurite in the cache scripts/azurite.sh shares,
// installing the pinned release there with npm when it is missing. Without
// node and npm the test skips, except in CI, which must run it.
func azuriteCommand(t *testing.T) string {
	t.Helper()
	home := os.Getenv("AZURITE_HOME")
	if home == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		home = filepath.Join(cache, "lazuli-azurite")
	}
	bin := filepath.Join(home, "node_modules", ".bin", "azurite")
	if installedVersion(home) == azuriteVersion {
		return bin
	}
	_, nodeErr := exec.LookPath("node")
	_, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		msg := "the Azurite import test needs node and npm to run Azurite " + azuriteVersion
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out, err := exec.Command("npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", home,
		"azurite@"+azuriteVersion).CombinedOutput()
	if err != nil {
		t.Fatalf("npm install azurite@%s: %v\n%s", azuriteVersion, err, out)
	}
	return bin
}

// installedVersion reads the version of the Azurite installed under home.
func installedVersion(home string) string {
	b, err := os.ReadFile(filepath.Join(home, "node_modules", "azurite", "package.json"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), `"version": "`); ok {
			return strings.TrimSuffix(v, `",`)
		}
	}
	return ""
}

// runningAzurite is an Azurite process writing its workspace to a folder.
type runningAzurite struct {
	cmd                     *exec.Cmd
	done                    chan error
	Blob, Queue, Table      int
	ConnectionString, Where string
}

// startAzurite runs Azurite on disk in dir on free loopback ports and
// waits until its three services listen.
func startAzurite(t *testing.T, dir string) *runningAzurite {
	t.Helper()
	bin := azuriteCommand(t)
	ports := freePorts(t, 3)
	cmd := exec.Command(bin, "--location", dir, "--blobPort", fmt.Sprint(ports[0]), "--queuePort", fmt.Sprint(ports[1]),
		"--tablePort", fmt.Sprint(ports[2]), "--disableTelemetry", "--skipApiVersionCheck", "--loose")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	az := &runningAzurite{cmd: cmd, done: make(chan error, 1), Blob: ports[0], Queue: ports[1], Table: ports[2],
		ConnectionString: devConnection(ports[0], ports[1], ports[2]), Where: dir}
	ready := make(chan struct{})
	var output strings.Builder
	go func() {
		listening := 0
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			output.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "successfully listening") {
				if listening++; listening == 3 {
					close(ready)
				}
			}
		}
		az.done <- cmd.Wait()
	}()
	t.Cleanup(az.stop)
	select {
	case <-ready:
		return az
	case err := <-az.done:
		t.Fatalf("azurite ended before listening: %v\n%s", err, output.String())
	case <-time.After(5 * time.Minute):
		// Node loads Azurite's modules before it listens: seconds on an idle
		// machine, over a minute on two cores busy with the race-enabled
		// test run (seen in CI at load 37). The bound only ends a hung start.
		t.Fatalf("azurite did not listen within five minutes")
	}
	return nil
}

// stop ends Azurite with SIGINT, on which it writes its databases out,
// and waits for it.
func (a *runningAzurite) stop() {
	if a.cmd.ProcessState != nil || a.done == nil {
		return
	}
	_ = a.cmd.Process.Signal(os.Interrupt)
	select {
	case <-a.done:
	case <-time.After(30 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
	}
	a.done = nil
}

// freePorts reserves n loopback ports and frees them for the caller.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
