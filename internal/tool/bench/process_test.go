package bench

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// childEnv, when set, makes the test binary serve the null target instead
// of running tests: the child process of TestNullChildProcess.
const childEnv = "LAZULI_BENCH_TEST_NULL_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := ServeNull(ctx, "127.0.0.1:0", os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestNullChildProcess measures the null server in a process of its own, as
// `lazuli bench --target null` does: the body size reaches it over HTTP and
// its CPU is read from /proc.
func TestNullChildProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childEnv, "1")
	target, stop, err := StartChild(context.Background(), []string{exe, "-test.run=^$"}, NullChildReady)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if target.Server.PID() == 0 {
		t.Fatal("the child's PID is unknown")
	}
	opts := testOptions(false)
	r := runUntilOps(t, target, "blob-get-1k", opts)
	if r.Ops == 0 || len(r.Errors) > 0 {
		t.Fatalf("blob-get-1k on the null child: %d ops, errors %v", r.Ops, r.Errors)
	}
	if want := float64(r.Ops) * kib; r.MBPerSec*r.Seconds*1e6 < want*0.99 {
		t.Errorf("read %.0f bytes in %d GETs; want 1 KiB each: the body size did not reach the child", r.MBPerSec*r.Seconds*1e6, r.Ops)
	}
	if _, ok := target.Server.cpu(); !ok {
		t.Error("the child's CPU time cannot be read")
	}
}

func TestParseProcStatusRSS(t *testing.T) {
	cases := []struct {
		name, status string
		want         int64
		ok           bool
	}{
		{"present", "Name:\tlazuli\nVmPeak:\t  900 kB\nVmRSS:\t   51200 kB\nRssAnon:\t 40000 kB\n", 51200 * 1024, true},
		{"absent (a kernel thread)", "Name:\tkthreadd\nState:\tS (sleeping)\n", 0, false},
		{"another unit", "VmRSS:\t 12 MB\n", 0, false},
		{"not a number", "VmRSS:\t x kB\n", 0, false},
	}
	for _, c := range cases {
		got, ok := parseProcStatusRSS(c.status)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %d %v, want %d %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestParseProcStatCPU(t *testing.T) {
	cases := []struct {
		name, stat string
		want       time.Duration
		ok         bool
	}{
		{"plain", "1234 (lazuli) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0", 3 * time.Second, true},
		{"spaces and parentheses in the name", "99 (a b) (c)) R 1 2 3 4 5 6 7 8 9 10 7 3 0 0", 100 * time.Millisecond, true},
		{"truncated", "99 (x) R 1 2 3", 0, false},
		{"no name", "garbage", 0, false},
		{"not numbers", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 u s 0 0", 0, false},
	}
	for _, c := range cases {
		got, ok := parseProcStatCPU(c.stat)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %v %v, want %v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
