package lazuli_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeMaxLines keeps README.md a front door: the detail lives in docs/.
const readmeMaxLines = 320

// markdownLink is an inline link or image: [text](target) or ![alt](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// codePath is a backticked repository path the documents name, such as
// `internal/service/queue/routes.go`: it must exist. Spans with wildcards
// or placeholders (`internal/service/<service>/*_test.go`) are patterns,
// not paths, and are not matched.
var codePath = regexp.MustCompile("`((?:internal|cmd|scripts|tests|lazulitest|docs|\\.ci)/[A-Za-z0-9_./-]+|[A-Za-z0-9_]+_test\\.go|Makefile|Dockerfile)`")

// climbingPath is a relative path that climbs folders (../internal,
// ../shared/x): from README.md, or too far from docs/, it leaves the
// repository and is unreadable for anyone who only has the repository.
var climbingPath = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:\.\./)+[^\s)\x60"']*)`)

// TestDocs checks README.md and docs/*.md as a reader with only this
// repository would meet them: every relative link and every named path
// exists, every link to a heading finds it, nothing points outside the
// repository, and README.md stays short.
func TestDocs(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append([]string{"README.md"}, docs...) {
		lines := readLines(t, doc)
		checkLinks(t, doc, lines)
		checkNamedPaths(t, doc, lines)
	}
	if n := len(readLines(t, "README.md")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines; keep it under %d and move detail to docs/", n, readmeMaxLines)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// checkLinks resolves every relative link of doc against the file's own
// folder, as a Markdown renderer does.
func checkLinks(t *testing.T, doc string, lines []string) {
	t.Helper()
	for i, line := range lines {
		for _, m := range climbingPath.FindAllStringSubmatch(line, -1) {
			if outside(filepath.Join(filepath.Dir(doc), m[1])) {
				t.Errorf("%s:%d: %s points outside the repository", doc, i+1, m[1])
			}
		}
		for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
			if err := checkLink(doc, m[1]); err != "" {
				t.Errorf("%s:%d: link %s: %s", doc, i+1, m[1], err)
			}
		}
	}
}

// checkLink returns what is wrong with one link target, or "".
func checkLink(doc, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	path := doc
	if file != "" {
		path = filepath.Join(filepath.Dir(doc), file)
	}
	if filepath.IsAbs(file) || outside(path) {
		return "outside the repository"
	}
	if _, err := os.Stat(path); err != nil {
		return "no such file in the repository"
	}
	if anchor != "" && strings.HasSuffix(path, ".md") && !hasHeading(path, anchor) {
		return "no heading with that anchor in " + path
	}
	return ""
}

// outside reports whether path, relative to the module root, leaves it.
func outside(path string) bool {
	rel := filepath.Clean(path)
	return rel == ".." || strings.HasPrefix(rel, "../")
}

// hasHeading reports whether the Markdown file at path has a heading
// whose anchor, as GitHub derives it, is anchor.
func hasHeading(path, anchor string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(line, "#") && headingAnchor(line) == anchor {
			return true
		}
	}
	return false
}

// headingAnchor is GitHub's anchor for a heading line: lower case, spaces
// to hyphens, punctuation other than hyphens and underscores dropped.
func headingAnchor(line string) string {
	text := strings.TrimSpace(strings.TrimLeft(line, "#"))
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkNamedPaths requires every repository path a document names in
// backticks to exist, so that a moved or deleted file cannot leave the
// documents pointing at nothing.
func checkNamedPaths(t *testing.T, doc string, lines []string) {
	t.Helper()
	for i, line := range lines {
		for _, m := range codePath.FindAllStringSubmatch(line, -1) {
			path := strings.TrimSuffix(m[1], "/")
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s:%d: names %s, which is not in the repository", doc, i+1, path)
			}
		}
	}
}

// TestDocsCheckerCatchesBrokenReferences feeds the checker the mistakes it
// exists for, so that it cannot pass by checking nothing.
func TestDocsCheckerCatchesBrokenReferences(t *testing.T) {
	for target, want := range map[string]string{
		"docs/no-such-page.md":         "no such file in the repository",
		"../shared/spec.md":            "outside the repository",
		"docs/testing.md#no-such":      "no heading with that anchor in docs/testing.md",
		"internal/README.md":           "",
		"docs/testing.md#testing":      "",
		"https://learn.microsoft.com/": "",
	} {
		if got := checkLink("README.md", target); got != want {
			t.Errorf("checkLink(%q) = %q, want %q", target, got, want)
		}
	}
	for doc, text := range map[string]string{"README.md": "see ../shared/notes.md", "docs/x.md": "(../../shared)"} {
		m := climbingPath.FindStringSubmatch(text)
		if m == nil || !outside(filepath.Join(filepath.Dir(doc), m[1])) {
			t.Errorf("%s: %q is not caught", doc, text)
		}
	}
	if m := climbingPath.FindStringSubmatch("[layers](../internal/README.md)"); m == nil || outside(filepath.Join("docs", m[1])) {
		t.Error("a link from docs/ to the repository's own files is refused")
	}
	if codePath.FindString("`internal/service/<service>/*_test.go`") != "" {
		t.Error("a path pattern is taken for a path")
	}
	if got := headingAnchor("## Lazuli inside a Go test: `lazulitest`"); got != "lazuli-inside-a-go-test-lazulitest" {
		t.Errorf("headingAnchor = %q", got)
	}
}
