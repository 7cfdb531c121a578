package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is the server process behind a target, when the benchmark knows
// it: a child it started (self, null) or the process a start command
// reported (a target restarted fresh for each scenario). Its CPU time, read
// from /proc, gives the server's own CPU per operation, which neither the
// load generator's CPU nor the host's stolen cycles dilute.
type Process struct {
	mu  sync.Mutex
	pid int
	// child is the process this benchmark started, nil otherwise.
	child *exec.Cmd
	// script, when set, is run as "script stop" then "script start" before
	// each scenario; its start prints the server's PID on its last line.
	script string
}

// PID is the server's process id, 0 when unknown.
func (p *Process) PID() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// cpu is the server process's user and system CPU time so far, and false
// when it cannot be read (no known PID, or no /proc).
func (p *Process) cpu() (time.Duration, bool) {
	pid := p.PID()
	if pid == 0 {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	return parseProcStatCPU(string(b))
}

// rss is the server process's resident set size in bytes (VmRSS of
// /proc/PID/status), and false when it cannot be read.
func (p *Process) rss() (int64, bool) {
	pid := p.PID()
	if pid == 0 {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	return parseProcStatusRSS(string(b))
}

// parseProcStatusRSS reads the "VmRSS:   1234 kB" line of /proc/PID/status
// (proc(5)).
func parseProcStatusRSS(status string) (int64, bool) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		kb, ok := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(kb, 10, 64)
		if err != nil {
			return 0, false
		}
		return n * 1024, true
	}
	return 0, false
}

// clockTicksPerSecond is USER_HZ, the unit of /proc/PID/stat's times. Linux
// fixes it at 100 for user space on every architecture Go supports.
const clockTicksPerSecond = 100

// parseProcStatCPU reads utime and stime (fields 14 and 15) from a
// /proc/PID/stat line. The command name (field 2) is in parentheses and may
// hold spaces, so fields are counted after its closing parenthesis.
func parseProcStatCPU(stat string) (time.Duration, bool) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, false
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is field 3 (state), so utime (14) is fields[11].
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTicksPerSecond, true
}

// restartable says whether restart starts the server afresh.
func (p *Process) restartable() bool { return p != nil && p.script != "" }

// restart stops the server and starts it again with its script, so that a
// scenario never measures a server that earlier scenarios filled (Azurite
// in memory slows down as it fills).
func (p *Process) restart(ctx context.Context) error {
	if err := exec.CommandContext(ctx, "sh", "-c", p.script+" stop").Run(); err != nil {
		return fmt.Errorf("%s stop: %w", p.script, err)
	}
	out, err := exec.CommandContext(ctx, "sh", "-c", p.script+" start").Output()
	if err != nil {
		return fmt.Errorf("%s start: %w", p.script, err)
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	pid := 0
	if len(lines) > 0 {
		pid, _ = strconv.Atoi(lines[len(lines)-1])
	}
	p.mu.Lock()
	p.pid = pid
	p.mu.Unlock()
	return nil
}

// Close stops a server that a script started; a child is stopped by the
// function StartChild returned.
func (p *Process) Close() {
	if p.restartable() {
		_ = exec.Command("sh", "-c", p.script+" stop").Run()
	}
}

// Fresh makes t restart with script before each scenario: "script stop",
// then "script start", whose last output line is the new server's PID (as
// scripts/azurite.sh prints it).
func Fresh(t Target, script string) Target {
	t.Server = &Process{script: script}
	return t
}

// StartChild runs argv as the server process of a target and waits until
// ready recognises a line of its standard output as the one that makes it
// usable (for Lazuli, its connection string). The returned stop ends the
// process with SIGTERM (SIGKILL after 30 s).
func StartChild(ctx context.Context, argv []string, ready func(line string) (Target, bool)) (Target, func(), error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Target{}, nil, err
	}
	if err := cmd.Start(); err != nil {
		return Target{}, nil, err
	}
	stop := func() { stopChild(cmd) }
	found := make(chan Target, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		announced := false
		for sc.Scan() {
			if announced {
				continue // keep draining so the child never blocks on a full pipe
			}
			if t, ok := ready(sc.Text()); ok {
				announced = true
				found <- t
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		close(found)
	}()
	select {
	case t, ok := <-found:
		if !ok {
			stop()
			return Target{}, nil, fmt.Errorf("%s exited before it was ready", argv[0])
		}
		t.Server = &Process{pid: cmd.Process.Pid, child: cmd}
		return t, stop, nil
	case <-time.After(60 * time.Second):
		stop()
		return Target{}, nil, fmt.Errorf("%s was not ready within 60 s", argv[0])
	case <-ctx.Done():
		stop()
		return Target{}, nil, ctx.Err()
	}
}

// stopChild asks the child to finish (Lazuli finishes in-flight requests on
// SIGTERM) and kills it if it has not within 30 s.
func stopChild(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			fmt.Fprintln(os.Stderr, "lazuli bench: waiting for the server:", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
