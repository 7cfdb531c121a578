package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// lazuliProcess is the Lazuli the SDK tests talk to: the repository's
// binary, started with the run's certificate on free ports.
type lazuliProcess struct {
	cmd *exec.Cmd
	// addrs maps a service ("blob", "queue", "table", "file") to the
	// host:port it listens on.
	addrs  map[string]string
	exited chan struct{}
}

var listeningLine = regexp.MustCompile(`^\s+(Blob|Queue|Table|File) service is successfully listening at (\S+)`)

// startLazuli runs bin with accounts (AZURITE_ACCOUNTS syntax) and the
// given extra flags and environment, and waits for the lines it prints
// once every service listens.
func startLazuli(bin, accounts string, tls tlsFiles, extra []string, stderr io.Writer, env ...string) (*lazuliProcess, error) {
	args := []string{"--blobPort", "0", "--queuePort", "0", "--tablePort", "0", "--filePort", "0",
		"--smbPort", "0", "--adminPort", "0", "--silent", "--cert", tls.Cert, "--key", tls.Key}
	cmd := exec.Command(bin, append(args, extra...)...)
	cmd.Env = append(append(os.Environ(), "AZURITE_ACCOUNTS="+accounts), env...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &lazuliProcess{cmd: cmd, addrs: map[string]string{}, exited: make(chan struct{})}
	ready := make(chan error, 2)
	go func() {
		scanner := bufio.NewScanner(stdout)
		var seen []string
		for scanner.Scan() {
			line := scanner.Text()
			seen = append(seen, line)
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				if u, err := url.Parse(m[2]); err == nil {
					p.addrs[strings.ToLower(m[1])] = u.Host
				}
			}
			if strings.HasPrefix(line, "Connection string:") {
				ready <- nil
				break
			}
		}
		io.Copy(io.Discard, stdout)
		ready <- fmt.Errorf("lazuli exited before it was ready:\n%s", strings.Join(seen, "\n"))
	}()
	go func() { cmd.Wait(); close(p.exited) }()
	select {
	case err := <-ready:
		if err != nil {
			return nil, err
		}
	case <-time.After(60 * time.Second):
		p.Stop()
		return nil, fmt.Errorf("lazuli was not ready within a minute")
	}
	for _, svc := range []string{"blob", "queue", "table", "file"} {
		if p.addrs[svc] == "" {
			p.Stop()
			return nil, fmt.Errorf("lazuli printed no address for the %s service", svc)
		}
	}
	return p, nil
}

// Stop ends the process with SIGTERM, and SIGKILL if it lingers.
func (p *lazuliProcess) Stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case <-p.exited:
	case <-ctx.Done():
		p.cmd.Process.Kill()
		<-p.exited
	}
}
