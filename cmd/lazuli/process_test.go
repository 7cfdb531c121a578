package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// The tests below run Lazuli as a real child process: this test binary
// re-executes itself with LAZULI_TEST_SERVE set, and TestMain then runs the
// command instead of the tests.
const serveEnv = "LAZULI_TEST_SERVE"

func TestMain(m *testing.M) {
	if args := os.Getenv(serveEnv); args != "" {
		os.Exit(run(strings.Split(args, "\x1f")))
	}
	os.Exit(m.Run())
}

// child is a Lazuli process started by a test.
type child struct {
	cmd      *exec.Cmd
	connStr  string
	exited   chan struct{}
	exitCode int
}

var connLine = regexp.MustCompile(`^\s+(DefaultEndpointsProtocol=.*)$`)

// startChild starts `lazuli serve` on free ports with data in dir, and any
// further flags, and waits for its connection string.
func startChild(t *testing.T, dir string, flags ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--location", dir, "--silent", "--blobPort", "0", "--queuePort", "0", "--adminPort", "0",
		"--tablePort", "0", "--filePort", "0", "--smbPort", "0"}
	args = append(args, flags...)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"="+strings.Join(args, "\x1f"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, exited: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := connLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		c.exitCode = cmd.ProcessState.ExitCode()
		close(c.exited)
	}()
	t.Cleanup(func() { c.kill() })
	select {
	case c.connStr = <-found:
		return c
	case <-c.exited:
		t.Fatalf("lazuli exited before it was ready (code %d)", c.exitCode)
	case <-time.After(60 * time.Second):
		t.Fatal("lazuli did not print its connection string within 60 s")
	}
	return nil
}

func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.exited
}

func blobClient(t *testing.T, connStr string) *azblob.Client {
	t.Helper()
	client, err := azblob.NewClientFromConnectionString(connStr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// TestSIGKILLLosesNoAcknowledgedWrite uploads blobs from 16 goroutines,
// kills the server with SIGKILL mid-storm, restarts it on the same data
// directory and reads back every upload the server had acknowledged.
func TestSIGKILLLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	srv := startChild(t, dir)
	client := blobClient(t, srv.connStr)
	ctx := context.Background()
	if _, err := client.CreateContainer(ctx, "storm", nil); err != nil {
		t.Fatal(err)
	}
	storm := startStorm(client, 16, func(name string, _, i int) []byte {
		return bytes.Repeat([]byte(name+";"), 1+i%40)
	})
	time.Sleep(1500 * time.Millisecond)
	srv.kill()
	acked := storm.stop(t)
	restarted := startChild(t, dir)
	readBackAll(t, blobClient(t, restarted.connStr), acked)
	t.Logf("%d acknowledged uploads all readable after SIGKILL and restart", len(acked))
}

// TestSIGTERMFinishesInFlightAndExitsZero sends SIGTERM while a Put Blob
// request body is still streaming, and expects that request to complete
// with 201 and the process to exit 0.
func TestSIGTERMFinishesInFlightAndExitsZero(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	srv := startChild(t, t.TempDir())
	client := blobClient(t, srv.connStr)
	ctx := context.Background()
	if _, err := client.CreateContainer(ctx, "slow", nil); err != nil {
		t.Fatal(err)
	}
	endpoint := regexp.MustCompile(`BlobEndpoint=([^;]+)`).FindStringSubmatch(srv.connStr)[1]
	const size = 1 << 20
	pr, pw := io.Pipe()
	req, err := http.NewRequest("PUT", endpoint+"/slow/inflight", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("x-ms-blob-type", "BlockBlob")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("x-ms-version", "2021-08-06")
	key, _ := base64.StdEncoding.DecodeString(devKey)
	auth.SignSharedKey(req, auth.Blob, "devstoreaccount1", key)
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		resp.Body.Close()
		done <- result{status: resp.StatusCode}
	}()
	half := bytes.Repeat([]byte("x"), size/2)
	if _, err := pw.Write(half); err != nil { // the request is now in flight
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := pw.Write(half); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if r := <-done; r.err != nil || r.status != http.StatusCreated {
		t.Errorf("request in flight at SIGTERM: status %d, err %v; want 201", r.status, r.err)
	}
	select {
	case <-srv.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("lazuli did not exit within 30 s of SIGTERM")
	}
	if srv.exitCode != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", srv.exitCode)
	}
}

// uploadStorm is writers uploading blobs into the container "storm" until
// the server goes or the storm is stopped, keeping each upload the server
// acknowledged.
type uploadStorm struct {
	mu     sync.Mutex
	acked  map[string][]byte
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startStorm starts writers, writer g's i-th blob named g%02d/blob-%05d
// with the body body gives.
func startStorm(client *azblob.Client, writers int, body func(name string, g, i int) []byte) *uploadStorm {
	ctx, cancel := context.WithCancel(context.Background())
	s := &uploadStorm{acked: map[string][]byte{}, cancel: cancel}
	for g := range writers {
		s.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				name := fmt.Sprintf("g%02d/blob-%05d", g, i)
				b := body(name, g, i)
				if _, err := client.UploadBuffer(ctx, "storm", name, b, nil); err != nil {
					return // the server is gone: stop this writer
				}
				s.mu.Lock()
				s.acked[name] = b
				s.mu.Unlock()
			}
		})
	}
	return s
}

// any reports whether some acknowledged upload's body satisfies ok.
func (s *uploadStorm) any(ok func([]byte) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.acked {
		if ok(b) {
			return true
		}
	}
	return false
}

// stop ends the storm and answers what was acknowledged, failing t when
// nothing was.
func (s *uploadStorm) stop(t *testing.T) map[string][]byte {
	t.Helper()
	s.cancel()
	s.wg.Wait()
	if len(s.acked) == 0 {
		t.Fatal("no upload was acknowledged before the kill")
	}
	return s.acked
}

// readBackAll reads every acknowledged upload back from the container
// "storm", after a SIGKILL and restart.
func readBackAll(t *testing.T, client *azblob.Client, acked map[string][]byte) {
	t.Helper()
	for name, want := range acked {
		resp, err := client.DownloadStream(context.Background(), "storm", name, nil)
		if err != nil {
			t.Fatalf("acknowledged blob %s lost after SIGKILL: %v", name, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("acknowledged blob %s differs after SIGKILL: %d bytes, err %v", name, len(got), err)
		}
	}
}
