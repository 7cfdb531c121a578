package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// testModule runs one module's tests and judges their leaves.
func testModule(o options, m sdkModule, work string, env map[string]string, list expectedFailures) (verdict, error) {
	src, err := m.download()
	if err != nil {
		return verdict{}, err
	}
	dir := filepath.Join(work, "src", m.Short())
	if err := copyModule(src, dir); err != nil {
		return verdict{}, err
	}
	if err := downloadDependencies(dir); err != nil {
		return verdict{}, err
	}
	jsonPath := filepath.Join(o.report, m.Short()+".json")
	out, err := os.Create(jsonPath)
	if err != nil {
		return verdict{}, err
	}
	args := []string{"test", "-json", "-count=1", "-p", fmt.Sprint(o.parallel), "-timeout", o.timeout.String()}
	if o.run != "" {
		args = append(args, "-run", o.run)
	}
	// The go command would send its own downloads through HTTPS_PROXY
	// too: everything it needs is in the module cache by now.
	cmdEnv := append(testEnv(env), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	groups, err := packageGroups(dir, cmdEnv, runApart[m.Short()])
	if err != nil {
		return verdict{}, err
	}
	started := time.Now()
	fmt.Printf("%s %s: go test ./... in %s\n", m.Short(), m.Version, dir)
	for _, group := range groups {
		cmd := exec.Command("go", append(args, group...)...)
		cmd.Dir, cmd.Env = dir, cmdEnv
		cmd.Stdout = out
		cmd.Stderr = out // build errors and downloads: kept with the events
		if runErr := cmd.Run(); runErr != nil {
			if _, ok := runErr.(*exec.ExitError); !ok {
				out.Close()
				return verdict{}, runErr
			}
		}
	}
	out.Close()
	elapsed := time.Since(started).Round(time.Second)
	in, err := os.Open(jsonPath)
	if err != nil {
		return verdict{}, err
	}
	defer in.Close()
	leaves, err := parseTestEvents(in)
	if err != nil {
		return verdict{}, err
	}
	if len(leaves) == 0 {
		return verdict{}, fmt.Errorf("no test results: see %s", jsonPath)
	}
	moduleList := list
	if o.run != "" {
		moduleList = onlyLeaves(list, leaves)
	}
	v := judge(m.Name, leaves, moduleList)
	fmt.Printf("%s: %d leaf tests in %s\n", m.Short(), len(leaves), elapsed)
	return v, writeFailures(filepath.Join(o.report, m.Short()+"-failures.txt"), leaves, list)
}

// runApart names, by module, the packages whose tests run after the others
// instead of beside them. azblob's service package waits 30 s for a Blob
// service property it set on the shared test account, while the blockblob
// package's TestBlobServiceClientDelete turns the same property on and off
// (RunTestRequiringServiceProperties): run together, the suites race on
// the account. azdatalake's service package lists every filesystem of its
// Data Lake account (TestListFilesystemsIncludeSystemFileSystems expects
// $logs alone), which its other packages fill while they run.
var runApart = map[string][]string{"azblob": {"service"}, "azdatalake": {"service"}}

// packageGroups is the module's packages as go test runs them: all but
// the apart ones together, then each apart one alone.
func packageGroups(dir string, env []string, apart []string) ([][]string, error) {
	if len(apart) == 0 {
		return [][]string{{"./..."}}, nil
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", "./...")
	cmd.Dir, cmd.Env = dir, env
	listed, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w", dir, err)
	}
	alone := map[string]bool{}
	for _, a := range apart {
		alone[filepath.Join(dir, a)] = true
	}
	var together []string
	groups := [][]string{nil}
	for _, line := range strings.Split(strings.TrimSpace(string(listed)), "\n") {
		path, pkgDir, _ := strings.Cut(line, " ")
		if alone[pkgDir] {
			groups = append(groups, []string{path})
		} else {
			together = append(together, path)
		}
	}
	groups[0] = together
	return groups, nil
}

// downloadDependencies fills the module cache with what the module's
// tests need (the module proxy is reached directly, not through the test
// proxy) and completes its go.sum.
func downloadDependencies(dir string) error {
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod download in %s: %v\n%s", dir, err, out)
	}
	return nil
}

// onlyLeaves narrows the list to the leaves a partial (-run) run produced.
func onlyLeaves(list expectedFailures, leaves []leaf) expectedFailures {
	out := expectedFailures{}
	for _, l := range leaves {
		if reason, ok := list[l.ID()]; ok {
			out[l.ID()] = reason
		}
	}
	return out
}

// writeFailures records every failed leaf with its reason, if listed, and
// what it printed.
func writeFailures(path string, leaves []leaf, list expectedFailures) error {
	var b strings.Builder
	for _, l := range leaves {
		if l.Outcome != failed {
			continue
		}
		reason, listed := list[l.ID()]
		if !listed {
			reason = "NOT LISTED"
		}
		fmt.Fprintf(&b, "=== %s\n    expected: %s\n", l.ID(), reason)
		for _, line := range l.Output {
			fmt.Fprintf(&b, "    %s\n", line)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func printVerdict(m sdkModule, v verdict, list expectedFailures) {
	fmt.Printf("%s: %d passed, %d expected failures, %d skipped; %d unexpected failures, %d listed now passing, %d listed not failing\n",
		m.Short(), v.Passed, v.ExpectedFail, v.Skipped, len(v.Unexpected), len(v.Fixed), len(v.Stale))
	for _, id := range v.Intermittent {
		fmt.Printf("  INTERMITTENT (listed, either outcome accepted): %s\n", id)
	}
	for _, l := range v.Unexpected {
		fmt.Printf("  UNEXPECTED FAILURE %s: %s\n", l.ID(), firstError(l.Output))
	}
	for _, id := range v.Fixed {
		fmt.Printf("  NOW PASSES (remove it from the list): %s (was: %s)\n", id, list[id])
	}
	for _, id := range v.Stale {
		fmt.Printf("  LISTED BUT NOT FAILING (remove it from the list): %s\n", id)
	}
}

// firstError picks the line of a failed test's output that says what
// went wrong: testify's "Error:" line, else the last line printed.
func firstError(output []string) string {
	for i, line := range output {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "Error:") {
			msg := strings.TrimSpace(strings.TrimPrefix(t, "Error:"))
			// testify puts the detail on the following lines
			for _, next := range output[i+1:] {
				n := strings.TrimSpace(next)
				if n == "" || strings.HasPrefix(n, "Test:") || strings.HasPrefix(n, "Messages:") {
					break
				}
				msg += " " + n
				if len(msg) > 300 {
					break
				}
			}
			return truncate(msg, 300)
		}
	}
	for i := len(output) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(output[i]); t != "" && !strings.HasPrefix(t, "--- FAIL") {
			return truncate(t, 300)
		}
	}
	return "(no output)"
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
