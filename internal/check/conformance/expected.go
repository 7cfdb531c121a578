package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// expectedFailures is the checked-in list of leaf tests known to fail,
// each with why: one line each, "PACKAGE TEST REASON...", where PACKAGE is
// relative to the SDK repository's sdk/ directory and TEST is the full
// name `go test` gives (subtest names never hold spaces); TEST "-" stands
// for a package that fails outside any test. Blank lines and lines that
// start with # are comments. A reason that starts with "intermittent:"
// marks a test that fails only sometimes (see judge).
type expectedFailures map[string]string // leaf ID to reason

func parseExpected(r io.Reader) (expectedFailures, error) {
	out := expectedFailures{}
	scanner := bufio.NewScanner(r)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			return nil, fmt.Errorf("line %d: want PACKAGE TEST REASON, got %q", n, line)
		}
		id := fields[0] + " " + fields[1]
		if fields[1] == "-" {
			id = fields[0]
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("line %d: %s is listed twice", n, id)
		}
		out[id] = strings.Join(fields[2:], " ")
	}
	return out, scanner.Err()
}

// intermittentPrefix starts the reason of a test that fails only
// sometimes: it may pass or fail without failing the run, and every run
// prints how it came out, so that it is investigated rather than forgotten.
const intermittentPrefix = "intermittent:"

// verdict compares one module's leaves with the list.
type verdict struct {
	Passed, ExpectedFail, Skipped int
	// Unexpected failed and is not listed; Fixed is listed and passed;
	// Stale is listed and was skipped, or is not among the leaves at all.
	Unexpected []leaf
	Fixed      []string
	Stale      []string
	// Intermittent are the listed tests known to fail only sometimes,
	// with how they came out this time; either way is accepted.
	Intermittent []string
}

func (v verdict) ok() bool { return len(v.Unexpected) == 0 && len(v.Fixed) == 0 && len(v.Stale) == 0 }

// judge sorts a module's leaves against the entries of the list that
// belong to the module (those whose package is module or below it).
func judge(module string, leaves []leaf, list expectedFailures) verdict {
	var v verdict
	seen := map[string]bool{}
	for _, l := range leaves {
		id := l.ID()
		seen[id] = true
		reason, listed := list[id]
		switch {
		case listed && strings.HasPrefix(reason, intermittentPrefix) && l.Outcome != skipped:
			if l.Outcome == passed {
				v.Passed++
			} else {
				v.ExpectedFail++
			}
			v.Intermittent = append(v.Intermittent, id+" ("+string(l.Outcome)+")")
		case l.Outcome == passed && listed:
			v.Fixed = append(v.Fixed, id)
		case l.Outcome == passed:
			v.Passed++
		case l.Outcome == skipped && listed:
			v.Stale = append(v.Stale, id+" (skipped)")
		case l.Outcome == skipped:
			v.Skipped++
		case listed:
			v.ExpectedFail++
		default:
			v.Unexpected = append(v.Unexpected, l)
		}
	}
	for id := range list {
		pkg, _, _ := strings.Cut(id, " ")
		if (pkg == module || strings.HasPrefix(pkg, module+"/")) && !seen[id] {
			v.Stale = append(v.Stale, id+" (did not run)")
		}
	}
	sort.Strings(v.Stale)
	return v
}
