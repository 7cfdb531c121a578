// Package pgtest gives the tests of Lazuli's PostgreSQL engines a database:
// the server named by LAZULI_TEST_POSTGRES when set, otherwise a throwaway
// server started once per test binary with the project's postgres.sh, on a
// free port under /tmp, and stopped when the binary ends. Each test then works
// in a schema of its own, so runs against a shared server do not interfere.
package pgtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable holding the URL of an existing server.
const EnvURL = "LAZULI_TEST_POSTGRES"

var (
	serverURL string
	serverErr error
)

// Main runs the tests of m against a PostgreSQL server and returns the exit
// code. Call it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	if url := os.Getenv(EnvURL); url != "" {
		serverURL = url
		return m.Run()
	}
	dir, stop, err := start()
	if err != nil {
		serverErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	defer stop()
	// Child processes a test re-executes (the store suite's kill test) find
	// this server instead of starting their own.
	os.Setenv(EnvURL, serverURL)
	return m.Run()
}

// start launches a private server and returns its directory and a stop func.
func start() (string, func(), error) {
	script, err := findScript()
	if err != nil {
		return "", nil, err
	}
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	// /tmp rather than $TMPDIR: the server runs as user postgres, which must
	// be able to traverse every parent of its directory.
	dir, err := os.MkdirTemp("/tmp", "lazuli-pgtest-")
	if err != nil {
		return "", nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(script, "start", dir, strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stop := func() { _ = exec.Command(script, "stop", dir).Run() }
	if err := cmd.Run(); err != nil {
		stop()
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("%s start: %v: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Fields(stdout.String())
	if len(lines) == 0 {
		stop()
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("%s start printed no URL", script)
	}
	serverURL = lines[len(lines)-1]
	return dir, stop, nil
}

// findScript locates the repository's scripts/postgres.sh at the module root.
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			script := filepath.Join(dir, "scripts", "postgres.sh")
			if _, err := os.Stat(script); err != nil {
				return "", fmt.Errorf("postgres.sh not found: %w", err)
			}
			return script, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module root (go.mod) not found above the test directory")
		}
		dir = parent
	}
}

// freePort asks the kernel for a port nobody listens on, so concurrent test
// binaries (and other people's servers) do not collide.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL returns the server's connection URL, skipping t when no server could
// be started.
func URL(t testing.TB) string {
	t.Helper()
	if serverURL == "" {
		if serverErr == nil {
			serverErr = errors.New("pgtest.Main was not called from TestMain")
		}
		if os.Getenv("CI") != "" {
			// In CI a missing PostgreSQL is a failure: the engine's tests
			// would otherwise pass by not running.
			t.Fatalf("PostgreSQL unavailable in CI (set %s to use an existing server): %v", EnvURL, serverErr)
		}
		t.Skipf("PostgreSQL unavailable (set %s to use an existing server): %v", EnvURL, serverErr)
	}
	return serverURL
}

// Schema returns the name of a new, unique schema (not yet created) and drops
// it, with everything in it, when t ends. Register it before opening engines
// on it so their Close cleanups run before the drop.
func Schema(t testing.TB) string {
	t.Helper()
	url := URL(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "lzt_" + hex.EncodeToString(b[:])
	t.Cleanup(func() { dropSchema(t, url, name) })
	return name
}

func dropSchema(t testing.TB, url, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("dropping schema %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("dropping schema %s: %v", name, err)
	}
}
