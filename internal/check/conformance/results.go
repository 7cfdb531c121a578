package main

import (
	"bufio"
	"encoding/json"
	"io"
	"sort"
	"strings"
)

// outcome is what one leaf test came to.
type outcome string

const (
	passed  outcome = "pass"
	failed  outcome = "fail"
	skipped outcome = "skip"
)

// leaf is one test without subtests (or a package that failed outside
// any test: Test is empty then), named by the package path relative to
// the SDK repository's sdk/ directory ("storage/azblob/blockblob").
type leaf struct {
	Package string
	Test    string
	Outcome outcome
	// Output is what the test printed, for the failure report.
	Output []string
}

// ID is how the expected-failures list names the leaf.
func (l leaf) ID() string {
	if l.Test == "" {
		return l.Package
	}
	return l.Package + " " + l.Test
}

// testEvent is one line of `go test -json` (cmd/test2json).
type testEvent struct {
	Action     string
	Package    string
	ImportPath string // of build-output events
	Test       string
	Output     string
}

// sdkPrefix is cut from package paths to name them in the list.
const sdkPrefix = "github.com/Azure/azure-sdk-for-go/sdk/"

// parseTestEvents reads `go test -json` output and returns its leaf
// tests, sorted. A test that started but never finished (its package
// panicked or hit the timeout) counts as failed; so does a package that
// failed (a build error, a panic in TestMain) with no failed test to show
// for it.
func parseTestEvents(r io.Reader) ([]leaf, error) {
	type key struct{ pkg, test string }
	tests := map[key]*leaf{}
	parents := map[key]bool{}
	pkgFailed := map[string]bool{}
	pkgOutput := map[string][]string{}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var ev testEvent
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil || ev.Action == "" {
			continue // go's own messages (downloads, build errors) are not JSON
		}
		pkg := strings.TrimPrefix(ev.Package, sdkPrefix)
		if ev.Action == "build-output" {
			// ImportPath is "pkg [pkg.test]" for a test binary's build.
			path, _, _ := strings.Cut(ev.ImportPath, " ")
			path = strings.TrimPrefix(path, sdkPrefix)
			pkgOutput[path] = append(pkgOutput[path], strings.TrimRight(ev.Output, "\n"))
			continue
		}
		if ev.Test == "" {
			switch ev.Action {
			case "output":
				pkgOutput[pkg] = append(pkgOutput[pkg], strings.TrimRight(ev.Output, "\n"))
			case "fail":
				pkgFailed[pkg] = true
			}
			continue
		}
		k := key{pkg, ev.Test}
		t := tests[k]
		if t == nil {
			t = &leaf{Package: pkg, Test: ev.Test}
			tests[k] = t
			for name := ev.Test; strings.Contains(name, "/"); {
				name = name[:strings.LastIndex(name, "/")]
				parents[key{pkg, name}] = true
			}
		}
		switch ev.Action {
		case "output":
			t.Output = append(t.Output, strings.TrimRight(ev.Output, "\n"))
		case "pass", "fail", "skip":
			t.Outcome = outcome(ev.Action)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	var out []leaf
	failedIn := map[string]bool{}
	for k, t := range tests {
		if parents[k] {
			continue
		}
		if t.Outcome == "" {
			t.Outcome = failed
			t.Output = append(t.Output, "(no result: the test binary ended before this test did)")
		}
		if t.Outcome == failed {
			failedIn[k.pkg] = true
		}
		out = append(out, *t)
	}
	// A parent that failed by itself (a suite's setup, a check after its
	// subtests) while every subtest passed is a failure of its own.
	for k, t := range tests {
		if parents[k] && t.Outcome == failed && !hasFailedLeaf(out, k.pkg, k.test+"/") {
			failedIn[k.pkg] = true
			out = append(out, *t)
		}
	}
	for pkg := range pkgFailed {
		if !failedIn[pkg] {
			out = append(out, leaf{Package: pkg, Outcome: failed, Output: pkgOutput[pkg]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out, nil
}

func hasFailedLeaf(leaves []leaf, pkg, prefix string) bool {
	for _, l := range leaves {
		if l.Package == pkg && l.Outcome == failed && strings.HasPrefix(l.Test, prefix) {
			return true
		}
	}
	return false
}
