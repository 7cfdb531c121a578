package route_test

import (
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

var update = flag.Bool("update", false, "rewrite testdata/tables.golden from the current route tables")

const golden = "testdata/tables.golden"

// TestTablesResolve pins which operation every service's route table
// resolves each request to. For every method, level and comp of a table it
// asks Lookup with each restype the table names (and none), and with every
// combination of the headers and query parameters the rows of that method,
// level and comp look at: absent, each value a row asks for (in two
// cases), and another value. Those classes are all a condition can tell apart, so the file
// records the whole matching behaviour a caller can see.
func TestTablesResolve(t *testing.T) {
	var lines []string
	for _, svc := range []string{"blob", "file", "queue", "table"} {
		lines = append(lines, resolveAll(svc, lazulitest.RouteTable(t, svc))...)
	}
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	wantLines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	if len(wantLines) != len(lines) {
		t.Errorf("%d requests resolved, %s has %d", len(lines), golden, len(wantLines))
	}
	for i := range min(len(lines), len(wantLines)) {
		if lines[i] != wantLines[i] {
			t.Errorf("got  %s\nwant %s", lines[i], wantLines[i])
		}
	}
}

// group is the rows a request of one method, level and comp can reach.
type group struct {
	method string
	level  route.Level
	comp   string
}

// condKey names one header or query parameter a row looks at.
type condKey struct {
	name  string
	query bool
}

// resolveAll resolves every request class of table, one line each:
// service, method, level, restype, comp, the conditions' values, and the
// operation or error code Lookup answers.
func resolveAll(svc string, table route.Table) []string {
	var groups []group
	restypes := map[group][]string{}
	values := map[group]map[condKey][]string{}
	for _, row := range table {
		g := group{row.Method, row.Level, row.Comp}
		if _, ok := values[g]; !ok {
			groups = append(groups, g)
			restypes[g] = []string{""}
			values[g] = map[condKey][]string{}
		}
		if !slices.Contains(restypes[g], row.Restype) {
			restypes[g] = append(restypes[g], row.Restype)
		}
		for _, c := range row.When {
			k := condKey{strings.ToLower(c.Name), c.Query}
			if _, ok := values[g][k]; !ok {
				values[g][k] = []string{"", "other"}
			}
			for _, v := range spellings(c.Value) {
				if !slices.Contains(values[g][k], v) {
					values[g][k] = append(values[g][k], v)
				}
			}
		}
	}
	var lines []string
	for _, g := range groups {
		keys := make([]condKey, 0, len(values[g]))
		for k := range values[g] {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b condKey) int { return strings.Compare(a.String(), b.String()) })
		for _, restype := range restypes[g] {
			for _, combo := range combinations(keys, values[g]) {
				lines = append(lines, resolve(svc, table, g, restype, keys, combo))
			}
		}
	}
	return lines
}

// spellings is a value a condition asks for as the row spells it and in
// another case, which must match alike; none for a condition on presence.
func spellings(value string) []string {
	if value == "" {
		return nil
	}
	other := strings.ToLower(value)
	if other == value {
		other = strings.ToUpper(value)
	}
	return []string{value, other}
}

// combinations is every choice of one value per key.
func combinations(keys []condKey, values map[condKey][]string) [][]string {
	combos := [][]string{nil}
	for _, k := range keys {
		var next [][]string
		for _, c := range combos {
			for _, v := range values[k] {
				next = append(next, append(slices.Clone(c), v))
			}
		}
		combos = next
	}
	return combos
}

func resolve(svc string, table route.Table, g group, restype string, keys []condKey, combo []string) string {
	q, h := url.Values{}, http.Header{}
	if restype != "" {
		q.Set("restype", restype)
	}
	if g.comp != "" {
		q.Set("comp", g.comp)
	}
	var given []string
	for i, k := range keys {
		if combo[i] == "" {
			given = append(given, k.String()+"=-")
			continue
		}
		given = append(given, k.String()+"="+combo[i])
		if k.query {
			q.Set(k.name, combo[i])
		} else {
			h.Set(k.name, combo[i])
		}
	}
	answer := ""
	rule, err := table.Lookup(g.method, g.level, q, h)
	if err == nil {
		answer = rule.Op
	} else if e, ok := azerr.As(err); ok {
		answer = "error " + e.Code
	} else {
		answer = "error " + err.Error()
	}
	return fmt.Sprintf("%s %s level=%d restype=%q comp=%q %s -> %s",
		svc, g.method, g.level, restype, g.comp, strings.Join(given, " "), answer)
}

func (k condKey) String() string {
	if k.query {
		return "?" + k.name
	}
	return k.name
}
