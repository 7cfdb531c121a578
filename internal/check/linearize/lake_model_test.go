package linearize

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// lakeNames are the two names the directory moves between, at the
// filesystem's root; a name's index stands for it in the model.
var lakeNames = [2]string{"a", "b"}

// lakeDir is one of the names as the model knows it: absent, or a
// directory with its ETag ("" while no answer has shown it: a directory a
// file's create made as its missing parent) and its files, sorted and
// joined by ",".
type lakeDir struct {
	exists   bool
	etag     string
	children string
}

// lakeState is both names: comparable, so that porcupine can compare
// states with ==.
type lakeState [2]lakeDir

// lakeOp is an operation's kind.
type lakeOp int

const (
	lakeList   lakeOp = iota // List Paths of the filesystem, recursive
	lakeCreate               // Path - Create of a file under a name
	lakeRename               // Path - Create with x-ms-rename-source, to the other name
	lakeRemove               // Path - Delete of a directory, recursive, If-Match
	lakeTouch                // Path - Create of a directory under a name
)

// lakeCond is a rename's condition.
type lakeCond int

const (
	lakeNoCond        lakeCond = iota
	lakeIfSourceMatch          // x-ms-source-if-match: the source's ETag
	lakeIfDestAbsent           // If-None-Match: * on the destination
)

// lakeInput is one operation: at is the name it acts on (a create's
// parent, a rename's source, a delete's target), etag the If-Match value
// (of the source for a rename), child a create's file name.
type lakeInput struct {
	op    lakeOp
	at    int
	cond  lakeCond
	etag  string
	child string
}

// lakeOutput is the answer: code is the error code of a refusal, "" for
// success; etag a rename's answered ETag; seen what a listing showed of
// the names and stray any path it showed that belongs to neither.
type lakeOutput struct {
	code  string
	etag  string
	seen  lakeState
	stray string
}

// The refusals the model expects, as the dfs API names them ("Path -
// Create" and "Path - Delete", Azure Data Lake Storage Gen2 REST).
const (
	codeSourceNotFound  = "SourcePathNotFound"
	codeSourceCondition = "SourceConditionNotMet"
	codeCondition       = "ConditionNotMet"
	codeNotEmpty        = "DirectoryNotEmpty"
	codePathNotFound    = "PathNotFound"
)

// lakeModel is the sequential model of the two names of one filesystem
// under directory renames, file creates, directory deletes and listings:
// a rename moves the directory with all its files at once, a listing
// shows every name exactly as one state has it (never a directory split
// between its old and new name), and a conditional operation succeeds
// exactly when its condition holds.
func lakeModel(initial lakeState) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(lakeState), input.(lakeInput), output.(lakeOutput)
			switch in.op {
			case lakeList:
				return listStep(s, out)
			case lakeCreate:
				return createStep(s, in, out)
			case lakeRename:
				return renameStep(s, in, out)
			case lakeTouch:
				return touchStep(s, in, out)
			default:
				return removeStep(s, in, out)
			}
		},
		Equal:             func(a, b any) bool { return a.(lakeState) == b.(lakeState) },
		DescribeOperation: describeLake,
		DescribeState:     func(state any) string { return describeState(state.(lakeState)) },
	}
}

// listStep: the listing shows each name as s has it; an ETag the model did
// not know yet is learnt from it.
func listStep(s lakeState, out lakeOutput) (bool, lakeState) {
	if out.code != "" || out.stray != "" {
		return false, s
	}
	for i, d := range s {
		seen := out.seen[i]
		if d.exists != seen.exists || d.children != seen.children || d.etag != "" && d.etag != seen.etag {
			return false, s
		}
		s[i].etag = seen.etag
	}
	return true, s
}

// createStep: a file's create always succeeds, its parent directory made
// first when the name is absent ("Path - Create" creates missing parents
// on a hierarchical namespace).
func createStep(s lakeState, in lakeInput, out lakeOutput) (bool, lakeState) {
	if out.code != "" {
		return false, s
	}
	if !s[in.at].exists {
		s[in.at] = lakeDir{exists: true}
	}
	s[in.at].children = withChild(s[in.at].children, in.child)
	return true, s
}

// touchStep: a directory's create always succeeds: it makes the name an
// empty directory, or gives the directory there the new ETag it answers
// and keeps its files (Put Blob over the directory's own blob).
func touchStep(s lakeState, in lakeInput, out lakeOutput) (bool, lakeState) {
	if out.code != "" || out.etag == "" {
		return false, s
	}
	s[in.at].exists, s[in.at].etag = true, out.etag
	return true, s
}

// renameStep: the rename refuses, in the service's order, a missing
// source (404), a source ETag other than x-ms-source-if-match (412), an
// existing destination under If-None-Match: * (412) and a destination
// directory with files in it (409); otherwise the directory moves whole,
// keeping its ETag, and replaces an empty destination.
func renameStep(s lakeState, in lakeInput, out lakeOutput) (bool, lakeState) {
	from, to := s[in.at], s[1-in.at]
	if in.cond == lakeIfSourceMatch && from.exists && from.etag == "" {
		if out.code == codeSourceCondition {
			return true, s // the unseen ETag may be any other
		}
		from.etag = in.etag // the condition held
	}
	want := ""
	switch {
	case !from.exists:
		want = codeSourceNotFound
	case in.cond == lakeIfSourceMatch && in.etag != from.etag:
		want = codeSourceCondition
	case in.cond == lakeIfDestAbsent && to.exists:
		want = codeCondition
	case to.exists && to.children != "":
		want = codeNotEmpty
	}
	if out.code != want {
		return false, s
	}
	if want != "" {
		s[in.at] = from
		return true, s
	}
	if from.etag == "" {
		from.etag = out.etag
	}
	if out.etag != from.etag {
		return false, s
	}
	s[1-in.at], s[in.at] = from, lakeDir{}
	return true, s
}

// removeStep: a recursive delete with If-Match removes the directory and
// its files when the ETag matches, and is 404 or 412 otherwise.
func removeStep(s lakeState, in lakeInput, out lakeOutput) (bool, lakeState) {
	d := s[in.at]
	switch {
	case !d.exists:
		return out.code == codePathNotFound, s
	case d.etag == "" && out.code == codeCondition:
		return true, s // the unseen ETag may be any other
	case d.etag != "" && d.etag != in.etag:
		return out.code == codeCondition, s
	}
	if out.code != "" {
		return false, s
	}
	s[in.at] = lakeDir{}
	return true, s
}

// withChild is the sorted set children with child added.
func withChild(children, child string) string {
	if children == "" {
		return child
	}
	names := strings.Split(children, ",")
	if i, found := slices.BinarySearch(names, child); !found {
		names = slices.Insert(names, i, child)
	}
	return strings.Join(names, ",")
}

// lakePath is one entry of a listing.
type lakePath struct {
	name string
	dir  bool
	etag string
}

// readListing is what a listing shows of the names: each name's directory
// entry and the files directly under it. A file under a name with no
// directory entry makes a state the model never has (absent with
// children); any other path is a stray.
func readListing(paths []lakePath) (seen lakeState, stray string) {
	var children [2][]string
	var strays []string
	for _, p := range paths {
		parent, child, nested := strings.Cut(p.name, "/")
		i := slices.Index(lakeNames[:], parent)
		switch {
		case i >= 0 && !nested && p.dir:
			seen[i].exists, seen[i].etag = true, bareETag(p.etag)
		case i >= 0 && nested && !p.dir && !strings.Contains(child, "/"):
			children[i] = append(children[i], child)
		default:
			strays = append(strays, p.name)
		}
	}
	for i := range children {
		slices.Sort(children[i])
		seen[i].children = strings.Join(children[i], ",")
	}
	return seen, strings.Join(strays, ",")
}

// bareETag is an ETag without its quotes: headers quote it, List Paths
// does not.
func bareETag(etag string) string { return strings.Trim(etag, `"`) }

func describeLake(input, output any) string {
	in, out := input.(lakeInput), output.(lakeOutput)
	answer := "ok"
	if out.code != "" {
		answer = out.code
	}
	name := lakeNames[in.at]
	switch in.op {
	case lakeList:
		return fmt.Sprintf("list -> %s stray [%s]", describeState(out.seen), out.stray)
	case lakeCreate:
		return fmt.Sprintf("create %s/%s -> %s", name, in.child, answer)
	case lakeRename:
		return fmt.Sprintf("rename %s to %s %s -> %s %s", name, lakeNames[1-in.at], condName(in), answer, out.etag)
	case lakeTouch:
		return fmt.Sprintf("create directory %s -> %s %s", name, answer, out.etag)
	}
	return fmt.Sprintf("delete %s if %s -> %s", name, in.etag, answer)
}

func describeState(s lakeState) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = lakeNames[i] + ": absent"
		if d.exists || d.children != "" {
			parts[i] = fmt.Sprintf("%s: %v %s [%s]", lakeNames[i], d.exists, d.etag, d.children)
		}
	}
	return strings.Join(parts, "; ")
}

// condName names a rename's condition in descriptions and tallies.
func condName(in lakeInput) string {
	switch in.cond {
	case lakeIfSourceMatch:
		return "if-source-match"
	case lakeIfDestAbsent:
		return "if-none-match"
	}
	return "unconditional"
}

// lakeOutcome names an operation's kind, a rename's condition, and the
// result.
func lakeOutcome(input, output any) string {
	in, out := input.(lakeInput), output.(lakeOutput)
	action := [...]string{"list", "create", "rename " + condName(in), "delete", "create directory"}[in.op]
	return result(action, out.code == "", out.code)
}

// listingOf is the listing of s as the service writes it: every path in
// name order, a directory before its files.
func listingOf(s lakeState) []lakePath {
	var paths []lakePath
	for i, d := range s {
		if d.exists {
			paths = append(paths, lakePath{name: lakeNames[i], dir: true, etag: d.etag})
		}
		if d.children == "" {
			continue
		}
		for child := range strings.SplitSeq(d.children, ",") {
			paths = append(paths, lakePath{name: lakeNames[i] + "/" + child})
		}
	}
	return paths
}

// mergedListing is the listing of a broken lister that reads its first
// page of n paths in one state and the rest in another, as a listing
// paged over two reads would answer.
func mergedListing(first, rest lakeState, n int) []lakePath {
	page := listingOf(first)[:n]
	last := page[n-1].name
	for _, p := range listingOf(rest) {
		if p.name > last {
			page = append(page, p)
		}
	}
	return page
}

// listOp is a listing's operation from call to ret that showed paths.
func listOp(client int, paths []lakePath, call, ret int64) porcupine.Operation {
	out := lakeOutput{}
	out.seen, out.stray = readListing(paths)
	return porcupine.Operation{ClientId: client, Input: lakeInput{op: lakeList}, Call: call, Output: out, Return: ret}
}

// TestLakeModelRefusesASplitListing: the check can fail. A rename of /a
// to /b runs inside a listing's call; a listing that read the rename's
// before and after states, its first page before and the rest after, shows
// /a with one file and /b with all of them, and is found not
// linearizable, as is one that lost a file, while a listing of either
// state alone is accepted.
func TestLakeModelRefusesASplitListing(t *testing.T) {
	before := lakeState{{exists: true, etag: "e0", children: "f1,f2,f3"}}
	after := lakeState{{}, before[0]}
	rename := porcupine.Operation{ClientId: 0, Input: lakeInput{op: lakeRename, at: 0}, Call: 10,
		Output: lakeOutput{etag: "e0"}, Return: 20}
	model := lakeModel(before)
	split := listOp(1, mergedListing(before, after, 2), 0, 30)
	if seen := split.Output.(lakeOutput).seen; seen[0].children != "f1" || seen[1].children != "f1,f2,f3" {
		t.Fatalf("the merged listing read as %s", describeState(seen))
	}
	if porcupine.CheckOperations(model, []porcupine.Operation{rename, split}) {
		t.Fatal("a listing showing the directory split between /a and /b was accepted")
	}
	for _, whole := range []lakeState{before, after} {
		if !porcupine.CheckOperations(model, []porcupine.Operation{rename, listOp(1, listingOf(whole), 0, 30)}) {
			t.Fatalf("a listing of %s during the rename was refused", describeState(whole))
		}
	}
	if porcupine.CheckOperations(model, []porcupine.Operation{rename, listOp(1, listingOf(before)[:3], 0, 30)}) {
		t.Fatal("a listing of /a without its file f3 was accepted")
	}
	if porcupine.CheckOperations(model, []porcupine.Operation{rename, listOp(1, listingOf(before), 25, 30)}) {
		t.Fatal("a listing begun after the rename returned that still showed /a was accepted")
	}
}

// TestLakeModelRefusesAHalfDoneCreate: a create of /b/c while /b is absent
// is one step, so that a listing during it shows neither /b empty (its
// parent made, the file not yet) nor /b/c without /b (the parent renamed
// away before the file was written).
func TestLakeModelRefusesAHalfDoneCreate(t *testing.T) {
	initial := lakeState{{exists: true, etag: "e0", children: "f1"}}
	create := porcupine.Operation{ClientId: 0, Input: lakeInput{op: lakeCreate, at: 1, child: "c"}, Call: 0, Output: lakeOutput{}, Return: 20}
	model := lakeModel(initial)
	emptyParent := append(listingOf(initial), lakePath{name: "b", dir: true, etag: "e1"})
	orphan := append(listingOf(initial), lakePath{name: "b/c"})
	whole := append(listingOf(initial), lakePath{name: "b", dir: true, etag: "e1"}, lakePath{name: "b/c"})
	for name, paths := range map[string][]lakePath{"an empty /b": emptyParent, "/b/c without /b": orphan} {
		if porcupine.CheckOperations(model, []porcupine.Operation{create, listOp(1, paths, 10, 30)}) {
			t.Errorf("a listing during the create showing %s was accepted", name)
		}
	}
	if !porcupine.CheckOperations(model, []porcupine.Operation{create, listOp(1, whole, 10, 30)}) {
		t.Error("a listing showing the create done was refused")
	}
}

// TestLakeModelRenameConditions: a rename succeeds exactly when its
// conditions hold, in the service's order of refusals.
func TestLakeModelRenameConditions(t *testing.T) {
	full := lakeDir{exists: true, etag: "e0", children: "f1"}
	empty := lakeDir{exists: true, etag: "e1"}
	cases := []struct {
		name  string
		state lakeState
		in    lakeInput
		want  string
	}{
		{"unconditional", lakeState{full}, lakeInput{}, ""},
		{"absent source", lakeState{{}, full}, lakeInput{}, codeSourceNotFound},
		{"source ETag matches", lakeState{full}, lakeInput{cond: lakeIfSourceMatch, etag: "e0"}, ""},
		{"stale source ETag", lakeState{full}, lakeInput{cond: lakeIfSourceMatch, etag: "e9"}, codeSourceCondition},
		{"stale source ETag, full destination", lakeState{full, full}, lakeInput{cond: lakeIfSourceMatch, etag: "e9"}, codeSourceCondition},
		{"destination absent", lakeState{full}, lakeInput{cond: lakeIfDestAbsent}, ""},
		{"empty destination exists", lakeState{full, empty}, lakeInput{cond: lakeIfDestAbsent}, codeCondition},
		{"empty destination replaced", lakeState{full, empty}, lakeInput{}, ""},
		{"full destination", lakeState{empty, full}, lakeInput{}, codeNotEmpty},
	}
	outcomes := []string{"", codeSourceNotFound, codeSourceCondition, codeCondition, codeNotEmpty}
	for _, c := range cases {
		c.in.op = lakeRename
		for _, code := range outcomes {
			out := lakeOutput{code: code}
			if code == "" {
				out.etag = c.state[0].etag
			}
			ok, next := renameStep(c.state, c.in, out)
			if ok != (code == c.want) {
				t.Errorf("%s: answer %q accepted %v, want only %q", c.name, code, ok, c.want)
			}
			if ok && code == "" && (next[0] != lakeDir{} || next[1] != c.state[0]) {
				t.Errorf("%s: moved to %s", c.name, describeState(next))
			}
		}
	}
}
