package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/netns"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// The container image, checked without a container runtime: the binary is
// built by the Dockerfile's own build command, laid out as the image lays it
// out (/usr/local/bin with the azurite command links, /data owned by the
// distroless nonroot user, the working folder /data), and started with the
// image's command as that user, chrooted into the layout and alone in a
// network namespace of its own. Every service, SMB included, is then
// reached from the host through a veth pair: from another address than
// loopback, as `docker run -p` reaches it.

// nonroot is the uid and gid of distroless's nonroot user, the image's user.
const nonroot = 65532

// imageAdminToken is what the test passes as LAZULI_ADMIN_TOKEN, as the
// image's documentation asks of users who reach the admin listener from
// outside.
const imageAdminToken = "image-test-token"

func TestImage(t *testing.T) {
	netns.Require(t)
	df := readDockerfile(t, "../../Dockerfile")
	root := buildImageRoot(t, df)
	t.Run("every service from outside", func(t *testing.T) {
		srv := startInImage(t, root, df.command)
		reachEveryService(t, srv.addr)
		srv.stop(t)

		// The volume: what the first start wrote under /data is there
		// for the next start of the image.
		srv = startInImage(t, root, df.command)
		readBack(t, srv.addr)
		srv.stop(t)
	})
	// Testcontainers' Azurite module (and compose files written for
	// Azurite's image) run the image's `azurite` command with Azurite's
	// flags and wait for its "successfully listening" lines.
	t.Run("azurite command", func(t *testing.T) {
		srv := startInImage(t, root, []string{"azurite", "--blobHost", "0.0.0.0", "--queueHost", "0.0.0.0", "--tableHost", "0.0.0.0"})
		defer srv.stop(t)
		for _, svc := range []string{"Blob", "Queue", "Table"} {
			srv.waitForLine(t, regexp.MustCompile(svc+` service is successfully listening at http://\S+:1000\d`))
		}
		if _, err := blobAt(t, srv.addr).CreateContainer(context.Background(), "testcontainers", nil); err != nil {
			t.Fatalf("blob through the azurite command: %v", err)
		}
	})
}

// dockerfile is what the test reads from the Dockerfile: the build stage's
// shell command that produces /out, and the image's command line.
type dockerfile struct {
	build   string
	command []string
}

// readDockerfile joins continued lines, then takes the RUN that builds
// /out/lazuli and the last ENTRYPOINT and CMD (exec form), as docker build
// does.
func readDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var df dockerfile
	var entrypoint, cmd []string
	joined := strings.ReplaceAll(string(data), "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		instr, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToUpper(instr) {
		case "RUN":
			if strings.Contains(rest, "-o /out/lazuli") {
				df.build = rest
			}
		case "ENTRYPOINT":
			entrypoint = execForm(t, instr, rest)
		case "CMD":
			cmd = execForm(t, instr, rest)
		}
	}
	df.command = append(entrypoint, cmd...)
	if df.build == "" || len(df.command) == 0 {
		t.Fatalf("%s: no RUN building /out/lazuli, or no CMD", path)
	}
	return df
}

func execForm(t *testing.T, instr, rest string) []string {
	t.Helper()
	var args []string
	if err := json.Unmarshal([]byte(rest), &args); err != nil {
		t.Fatalf("%s %s: not in the exec form this test reads: %v", instr, rest, err)
	}
	return args
}

// buildImageRoot runs the Dockerfile's build command with /out and /data
// inside a temporary root, then lays that root out as the final stage does:
// /out's files in /usr/local/bin, /data owned by nonroot, and the /tmp and
// /etc/passwd the distroless base has.
func buildImageRoot(t *testing.T, df dockerfile) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "usr", "local", "bin")
	data := filepath.Join(root, "data")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer("/out", bin, "/data", data).Replace(df.build)
	build := exec.Command("sh", "-ec", script)
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the Dockerfile's build command %q: %v\n%s", script, err, out)
	}
	for _, dir := range []string{data, filepath.Join(root, "tmp"), filepath.Join(root, "etc")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Chown(data, nonroot, nonroot))
	must(t, os.Chmod(filepath.Join(root, "tmp"), 0o1777|os.ModeSticky))
	must(t, os.WriteFile(filepath.Join(root, "etc", "passwd"), []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"), 0o644))
	return root
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// imageProcess is the image's command running in its own root and network.
type imageProcess struct {
	cmd    *exec.Cmd
	addr   string // the process's address, seen from the host
	veth   string // the host's end of the pair
	output *lockedBuffer
}

// startInImage starts args[0] from /usr/local/bin as the image would: as
// nonroot, in /data, chrooted into root, in a new network namespace joined
// to the host by a veth pair with addresses of its own.
func startInImage(t *testing.T, root string, args []string) *imageProcess {
	t.Helper()
	p := &imageProcess{output: &lockedBuffer{}}
	p.cmd = &exec.Cmd{
		Path:   "/usr/local/bin/" + args[0],
		Args:   args,
		Dir:    "/data",
		Env:    []string{"PATH=/usr/local/bin", "HOME=/home/nonroot", "LAZULI_ADMIN_TOKEN=" + imageAdminToken},
		Stdout: p.output,
		Stderr: p.output,
		SysProcAttr: &syscall.SysProcAttr{
			Chroot:     root,
			Credential: &syscall.Credential{Uid: nonroot, Gid: nonroot},
			Pdeathsig:  syscall.SIGKILL,
		},
	}
	ns := netns.New(t)
	if err := ns.Start(t, p.cmd); err != nil {
		t.Fatalf("start %v in the image layout: %v", args, err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	p.addr, p.veth = ns.NSIP, ns.HostEnd
	p.waitForPort(t, "10000")
	return p
}

func (p *imageProcess) waitForPort(t *testing.T, port string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(p.addr, port), time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s:%s from the host after 30 s; the process said:\n%s", p.addr, port, p.output.String())
}

func (p *imageProcess) waitForLine(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !re.MatchString(p.output.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no line matching %s in:\n%s", re, p.output.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM, as docker stop does, and expects a clean exit.
func (p *imageProcess) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("the image's process on SIGTERM: %v\n%s", err, p.output.String())
	}
	_ = exec.Command("ip", "link", "del", p.veth).Run()
}

// imageConnString is the development account at addr on the image's ports.
func imageConnString(addr string) string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;"+
		"BlobEndpoint=http://%[3]s:10000/%[1]s;QueueEndpoint=http://%[3]s:10001/%[1]s;"+
		"TableEndpoint=http://%[3]s:10002/%[1]s;FileEndpoint=http://%[3]s:10003/%[1]s;",
		auth.DevAccountName, auth.DevAccountKey, addr)
}

func blobAt(t *testing.T, addr string) *azblob.Client {
	t.Helper()
	c, err := azblob.NewClientFromConnectionString(imageConnString(addr), nil)
	must(t, err)
	return c
}

const imageBlobContent = "written through the image"

// reachEveryService uses each service from the host: Blob, Queue, Table
// and File over REST, the share over SMB with smbclient, and the admin
// listener with the image's token (refused without it).
func reachEveryService(t *testing.T, addr string) {
	t.Helper()
	ctx := context.Background()
	bc := blobAt(t, addr)
	if _, err := bc.CreateContainer(ctx, "img", nil); err != nil {
		t.Fatalf("blob: %v", err)
	}
	if _, err := bc.UploadBuffer(ctx, "img", "b.txt", []byte(imageBlobContent), nil); err != nil {
		t.Fatalf("blob upload: %v", err)
	}
	qc, err := azqueue.NewServiceClientFromConnectionString(imageConnString(addr), nil)
	must(t, err)
	if _, err := qc.CreateQueue(ctx, "img", nil); err != nil {
		t.Fatalf("queue: %v", err)
	}
	reachTable(t, addr)
	sc, err := share.NewClientFromConnectionString(imageConnString(addr), "share", nil)
	must(t, err)
	if _, err := sc.Create(ctx, nil); err != nil {
		t.Fatalf("file: %v", err)
	}
	reachSMB(t, addr)
	reachAdmin(t, addr)
}

func reachTable(t *testing.T, addr string) {
	t.Helper()
	tc, err := aztables.NewServiceClientFromConnectionString(imageConnString(addr), nil)
	must(t, err)
	if _, err := tc.CreateTable(context.Background(), "img", nil); err != nil {
		t.Fatalf("table: %v", err)
	}
}

func reachSMB(t *testing.T, addr string) {
	t.Helper()
	bin, err := exec.LookPath("smbclient")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("smbclient is not installed (Debian package smbclient)")
		}
		t.Log("smbclient is not installed: SMB not reached")
		return
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "up.txt"), []byte("over smb"), 0o644))
	cmd := exec.Command(bin, "//"+addr+"/share", "-p", "10445", "-U", auth.DevAccountName+"%"+auth.DevAccountKey,
		"-W", "WORKGROUP", "-m", "SMB3_11", "-c", "lcd "+dir+"; put up.txt smb.txt; ls")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "NT_STATUS_") || !strings.Contains(string(out), "smb.txt") {
		t.Fatalf("smbclient to %s:10445: %v\n%s", addr, err, out)
	}
}

// reachAdmin: from outside the namespace the admin listener answers only
// the bearer of the image's token.
func reachAdmin(t *testing.T, addr string) {
	t.Helper()
	url := "http://" + addr + ":10009/clock"
	resp, err := http.Get(url)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("admin listener answered %s from outside without the token", resp.Status)
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+imageAdminToken)
	resp, err = http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("admin listener with the token: %s", resp.Status)
	}
}

// readBack reads after a restart what reachEveryService wrote.
func readBack(t *testing.T, addr string) {
	t.Helper()
	resp, err := blobAt(t, addr).DownloadStream(context.Background(), "img", "b.txt", nil)
	if err != nil {
		t.Fatalf("after a restart of the image: %v", err)
	}
	var got bytes.Buffer
	_, err = got.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil || got.String() != imageBlobContent {
		t.Fatalf("after a restart: %q, %v", got.String(), err)
	}
}
