package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/s3test"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/minio/minio-go/v7"
)

// The scale-out failure tests run two `lazuli serve` processes over a
// PostgreSQL server of the test's own (scripts/postgres.sh), so that a
// restart of it disturbs nobody else's tests, and, where content lives on
// S3, a SeaweedFS server of the test's own too (scripts/s3.sh).

// repoScript is the path of one of the repository's scripts.
func repoScript(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// freeLowPort is a port nobody listens on, below limit.
func freeLowPort(t *testing.T, limit int) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port < limit {
			return port
		}
	}
	t.Fatalf("no free port below %d", limit)
	return 0
}

// freeS3Port is a port for s3.sh, which listens on it, the three ports
// above it and each one's port + 10000: all eight are free and below
// Linux's ephemeral range (32768 and up), where any process's outgoing
// connection may take a port between this check and the server's start.
func freeS3Port(t *testing.T) int {
	t.Helper()
	for range 100 {
		base := 20000 + rand.IntN(2700)
		if portsFree(base, base+1, base+2, base+3, base+10000, base+10001, base+10002, base+10003) {
			return base
		}
	}
	t.Fatal("no free ports for the S3 server between 20000 and 32703")
	return 0
}

// portsFree reports whether each port can be listened on now.
func portsFree(ports ...int) bool {
	for _, p := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return false
		}
		l.Close()
	}
	return true
}

// pgServer is a PostgreSQL server of one test.
type pgServer struct {
	dir, url string
}

// startPostgres starts a PostgreSQL server for t alone, stopped when t
// ends.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	script := repoScript(t, "postgres.sh")
	// /tmp: the server runs as user postgres, which must reach the directory.
	dir, err := os.MkdirTemp("/tmp", "lazuli-pgfail-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out, err := exec.Command(script, "start", dir, strconv.Itoa(freeLowPort(t, 65536))).Output()
	if err != nil {
		t.Fatalf("postgres.sh start: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command(script, "stop", dir).Run() })
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		t.Fatal("postgres.sh start printed no URL")
	}
	return &pgServer{dir: dir, url: fields[len(fields)-1]}
}

// restart stops the server, ending every connection (pg_ctl's fast mode),
// and starts it again on the same data, as an operator's restart or a
// failover to the same address would.
func (p *pgServer) restart(t *testing.T) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Fatal("pg_ctl not found under /usr/lib/postgresql")
	}
	sort.Strings(bins)
	args := []string{bins[len(bins)-1], "-D", filepath.Join(p.dir, "data"), "-l", filepath.Join(p.dir, "server.log"),
		"-m", "fast", "-w", "-t", "60", "restart"}
	if os.Getuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl restart: %v: %s", err, out)
	}
	// postgres.sh stop reads the pid from here.
	pid, err := os.ReadFile(filepath.Join(p.dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(pid), "\n")
	if err := os.WriteFile(filepath.Join(p.dir, "pid"), []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// s3Server is a SeaweedFS S3 server of one test.
type s3Server struct {
	dir  string
	port int
	// url is the s3:// URL of its test bucket, for --extents.
	url string
}

// startS3 starts an S3 server for t alone, stopped when t ends, and sets
// the credentials it accepts in the environment, where the nodes read them.
func startS3(t *testing.T) *s3Server {
	t.Helper()
	script := repoScript(t, "s3.sh")
	dir, err := os.MkdirTemp("", "lazuli-s3fail-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &s3Server{dir: dir, port: freeS3Port(t)}
	cmd := exec.Command(script, "start", dir, strconv.Itoa(s.port))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("s3.sh start: %v", err)
	}
	t.Cleanup(func() { _ = exec.Command(script, "stop", dir).Run() })
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if !ok {
			continue
		}
		value = strings.Trim(value, "'")
		if name == "LAZULI_TEST_S3" {
			s.url = value
		} else {
			t.Setenv(name, value)
		}
	}
	if s.url == "" {
		t.Fatalf("s3.sh start printed no LAZULI_TEST_S3: %s", out)
	}
	loc, client := s3test.S3Client(t, s.url)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := client.MakeBucket(ctx, loc.Bucket, minio.MakeBucketOptions{Region: loc.Region}); err != nil {
		t.Fatal(err)
	}
	return s
}

// restart stops the server (SIGTERM) and starts it again with the same
// command line and environment on the same data, then waits until it
// listens again.
func (s *s3Server) restart(t *testing.T) {
	t.Helper()
	pidFile := filepath.Join(s.dir, "pid")
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	args := procStrings(t, pid, "cmdline")
	env := procStrings(t, pid, "environ")
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the S3 server to exit", func() bool { return !running(pid) })
	log, err := os.OpenFile(filepath.Join(s.dir, "weed.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(s.port)
	waitFor(t, 60*time.Second, "the S3 server to listen again", func() bool {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
}

// procStrings is a NUL-separated file of /proc/PID.
func procStrings(t *testing.T, pid int, name string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
}

// running reports whether process pid exists and is not a zombie (a
// reparented server may wait for a reaper after it exits).
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// waitFor polls cond until it holds, failing t after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func downloadBlob(t *testing.T, client *azblob.Client, container, name string) []byte {
	t.Helper()
	resp, err := client.DownloadStream(context.Background(), container, name, nil)
	must(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	return data
}

// status is the HTTP status of an SDK error, 0 for none or a non-HTTP one.
func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}
