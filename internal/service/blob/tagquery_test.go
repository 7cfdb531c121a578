package blob

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

func mustTags(t *testing.T, kv ...string) blobdata.TagSet {
	t.Helper()
	var tags []blobdata.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		tags = append(tags, blobdata.Tag{Key: kv[i], Value: kv[i+1]})
	}
	s, err := newTagSet(tags)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTagQueryMatch(t *testing.T) {
	tags := mustTags(t, "Project", "Contoso", "Status", "In Progress", "Rank", "042", "Date", "2020-04-20")
	cases := []struct {
		expr string
		mode tagQueryMode
		want bool
	}{
		{`"Project" = 'Contoso'`, findQuery, true},
		{`"Project"='Contoso'`, findQuery, true},
		{`Project = 'Contoso'`, findQuery, true},
		{`"Project" = 'contoso'`, findQuery, false},
		{`"Status" = 'In Progress' AND "Rank" >= '040'`, findQuery, true},
		{`"Status" = 'In Progress' and "Rank" > '042'`, findQuery, false},
		{`"Date" >= '2020-04-01' AND "Date" < '2020-05-01'`, findQuery, true},
		{`"Date" > '2020-04-20'`, findQuery, false},
		{`"Date" <= '2020-04-20'`, findQuery, true},
		{`"Missing" = ''`, findQuery, false},
		{`"Missing" < 'z'`, findQuery, false},
		{`@container = 'c1' AND "Project" = 'Contoso'`, findQuery, true},
		{`@container = 'c2' AND "Project" = 'Contoso'`, findQuery, false},
		{`"Project" <> 'Contoso'`, conditionQuery, false},
		{`"Project" <> 'Fabrikam'`, conditionQuery, true},
		{`"Project" = 'Fabrikam' OR "Rank" = '042'`, conditionQuery, true},
		{`("Project" = 'Fabrikam' OR "Rank" = '042') AND "Status" = 'Done'`, conditionQuery, false},
		{`"Project" = 'Fabrikam' OR "Rank" = '042' AND "Status" = 'Done'`, conditionQuery, false},
		{`"Project" = 'Contoso' OR "Rank" = '042' AND "Status" = 'Done'`, conditionQuery, true},
		{`((("Rank" = '042')))`, conditionQuery, true},
	}
	for _, c := range cases {
		e, err := parseTagQuery(c.expr, c.mode)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := e.match(tags, "c1"); got != c.want {
			t.Errorf("%s: got %v, want %v", c.expr, got, c.want)
		}
	}
}

func TestTagQueryErrors(t *testing.T) {
	cases := []struct {
		expr string
		mode tagQueryMode
	}{
		{``, findQuery},
		{`"a"`, findQuery},
		{`"a" =`, findQuery},
		{`"a" = 'x`, findQuery},
		{`"a" = "x"`, findQuery},
		{`'a' = 'x'`, findQuery},
		{`"a" = 'x' OR "b" = 'y'`, findQuery},
		{`("a" = 'x')`, findQuery},
		{`"a" <> 'x'`, findQuery},
		{`@container = 'c'`, findQuery},
		{`@container > 'c' AND "a" = 'x'`, findQuery},
		{`"a" > '1' AND "a" >= '2'`, findQuery},
		{`"a" = '1' AND "a" = '2'`, findQuery},
		{`@container = 'c'`, conditionQuery},
		{`"a" = 'x' AND`, conditionQuery},
		{`("a" = 'x'`, conditionQuery},
		{`"a" = 'x')`, conditionQuery},
		{`"a" == 'x'`, conditionQuery},
		{`"a" = 'x' "b" = 'y'`, conditionQuery},
		{`"a!" = 'x'`, conditionQuery},
		{`"a" = 'x!'`, conditionQuery},
		{`"" = 'x'`, conditionQuery},
		{`@blob = 'x'`, findQuery},
	}
	for _, c := range cases {
		if _, err := parseTagQuery(c.expr, c.mode); !isTagQueryError(err) {
			t.Errorf("%q: want a syntax error, got %v", c.expr, err)
		}
	}
	// An x-ms-if-tags expression takes ten logical operations (eleven
	// comparisons), not eleven.
	eleven := `"k0" = 'v'`
	for i := 1; i < 11; i++ {
		eleven += fmt.Sprintf(` AND "k%d" = 'v'`, i)
	}
	if _, err := parseTagQuery(eleven, conditionQuery); err != nil {
		t.Fatalf("ten logical operations: %v", err)
	}
	if _, err := parseTagQuery(eleven+` OR "kx" = 'v'`, conditionQuery); err == nil {
		t.Fatal("eleven logical operations accepted")
	}
}

// TestFindQueryCountsUniqueTags pins Find Blobs by Tags' limit of ten
// distinct tag keys, which neither @container nor a second bound on a key
// counts toward (Azurite's tests "filter blob by tags with conditions
// number equal to limitation" and "...more than limited conditions", whose
// message "there can be at most 10 unique tags in a query" is the service's).
func TestFindQueryCountsUniqueTags(t *testing.T) {
	ten := `"k0" >= 'a' AND "k0" < 'z'`
	for i := 1; i < 10; i++ {
		ten += ` AND "k` + string(rune('0'+i)) + `" = 'v'`
	}
	if _, err := parseTagQuery(ten+` AND @container = 'c'`, findQuery); err != nil {
		t.Fatalf("ten keys, a range and @container: %v", err)
	}
	_, err := parseTagQuery(ten+` AND "kx" = 'v'`, findQuery)
	if err == nil || !strings.Contains(err.Error(), "at most 10 unique tags") {
		t.Fatalf("eleven keys: %v", err)
	}
}

func TestPlanTagScanUsesEquality(t *testing.T) {
	e, err := parseTagQuery(`"b" > '1' AND "a" = 'x'`, findQuery)
	if err != nil {
		t.Fatal(err)
	}
	rng := planTagScan("acct", "", e, false)
	want := blobdata.TagIndexPrefix("acct", "a").Str("x")
	if string(rng.start) != string(want) || rng.containerFamily {
		t.Fatalf("scan starts at %q, want %q", rng.start, want)
	}
	// With include=versions the same plan reads the version index.
	rng = planTagScan("acct", "", e, true)
	want = blobdata.VersionTagIndexPrefix("acct", "a").Str("x")
	if string(rng.start) != string(want) || !rng.versions {
		t.Fatalf("version scan starts at %q, want %q", rng.start, want)
	}
	e, _ = parseTagQuery(`@container = 'c' AND "b" > '1' AND "b" <= '5'`, findQuery)
	rng = planTagScan("acct", "", e, false)
	prefix := blobdata.ContainerTagIndexPrefix("acct", "c", "b")
	if !rng.containerFamily || string(rng.start) <= string(prefix.Str("1")) || string(rng.end) <= string(prefix.Str("5")) {
		t.Fatalf("range scan planned as %+v", rng)
	}
}

func FuzzTagQuery(f *testing.F) {
	for _, s := range []string{
		`"Project" = 'Contoso'`,
		`"a" >= '1' AND "a" < '9' AND @container = 'c'`,
		`("a" = 'x' OR "b" <> 'y') AND "c" <= 'z'`,
		`a='b'`, `((((`, `"a" = 'x`, `@container`, `"x" = '' OR`,
	} {
		f.Add(s)
	}
	tags := blobdata.TagSet{{Key: "a", Value: "x"}, {Key: "b", Value: "y"}, {Key: "c", Value: "z"}}
	f.Fuzz(func(t *testing.T, s string) {
		for _, mode := range []tagQueryMode{findQuery, conditionQuery} {
			e, err := parseTagQuery(s, mode)
			if err != nil {
				if !isTagQueryError(err) {
					t.Fatalf("%q: error outside the syntax class: %v", s, err)
				}
				continue
			}
			e.match(tags, "c")
			if n := len(e.comparisons()); n == 0 || mode == conditionQuery && n-1 > maxTagLogicalOps {
				t.Fatalf("%q: %d comparisons", s, n)
			}
			if n := len(e.keys()); mode == findQuery && n > maxFindTagKeys+1 {
				t.Fatalf("%q: %d keys", s, n)
			}
			if mode == findQuery {
				planTagScan("a", "", e, false)
			}
		}
	})
}

// isTagQueryError reports whether err is the parser's syntax error.
func isTagQueryError(err error) bool {
	var q *tagQueryError
	return errors.As(err, &q)
}
