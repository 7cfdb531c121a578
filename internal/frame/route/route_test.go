package route

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestMatch(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) error { return nil }
	table := Table{
		{Op: "CreateContainer", Method: "PUT", Level: Container, Restype: "container", Handle: ok},
		{Op: "SetContainerMetadata", Method: "PUT", Level: Container, Restype: "container", Comp: "metadata", Handle: ok},
		{Op: "CopyBlob", Method: "PUT", Level: Object, When: []Cond{HeaderSet("x-ms-copy-source")}, Handle: ok},
		{Op: "PutBlob", Method: "PUT", Level: Object, Handle: ok},
		{Op: "GetBlob", Method: "GET", Level: Object, Handle: ok},
		{Op: "ListContainers", Method: "GET", Level: Service, Comp: "list", Handle: ok},
	}
	cases := []struct {
		method, target string
		header         string
		level          Level
		wantOp         string
		wantCode       string
	}{
		{"PUT", "/c?restype=container", "", Container, "CreateContainer", ""},
		{"PUT", "/c?restype=container&comp=metadata", "", Container, "SetContainerMetadata", ""},
		{"PUT", "/c/b", "", Object, "PutBlob", ""},
		{"PUT", "/c/b", "x-ms-copy-source", Object, "CopyBlob", ""},
		{"GET", "/c/b", "", Object, "GetBlob", ""},
		{"DELETE", "/c/b", "", Object, "", azerr.UnsupportedHttpVerb},
		{"GET", "/?comp=list", "", Service, "ListContainers", ""},
		{"GET", "/?comp=bogus", "", Service, "", azerr.InvalidQueryParameterValue},
		{"GET", "/c?restype=bogus", "", Container, "", azerr.InvalidQueryParameterValue},
		{"POST", "/?comp=list", "", Service, "", azerr.UnsupportedHttpVerb},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.target, nil)
		if c.header != "" {
			r.Header.Set(c.header, "x")
		}
		rule, err := table.Match(r, c.level)
		if c.wantCode != "" {
			if !azerr.Is(err, c.wantCode) {
				t.Errorf("%s %s: got %v, want %s", c.method, c.target, err, c.wantCode)
			}
			continue
		}
		if err != nil || rule.Op != c.wantOp {
			t.Errorf("%s %s: got %v %v, want %s", c.method, c.target, rule, err, c.wantOp)
		}
	}
}

// TestMatchValues: rows told apart by a header's value or a query
// parameter, tried in table order before the rows without conditions.
func TestMatchValues(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) error { return nil }
	table := Table{
		{Op: "BreakLease", Method: "PUT", Level: Object, Comp: "lease", When: []Cond{HeaderIs("x-ms-lease-action", "break")}, Handle: ok},
		{Op: "AcquireLease", Method: "PUT", Level: Object, Comp: "lease", When: []Cond{HeaderIs("x-ms-lease-action", "acquire")}, Handle: ok},
		{Op: "Lease", Method: "PUT", Level: Object, Comp: "lease", Handle: ok},
		{Op: "PutFromURL", Method: "PUT", Level: Object, When: []Cond{HeaderSet("x-ms-copy-source"), HeaderSet("x-ms-blob-type")}, Handle: ok},
		{Op: "CopySync", Method: "PUT", Level: Object, When: []Cond{HeaderSet("x-ms-copy-source"), HeaderIs("x-ms-requires-sync", "true")}, Handle: ok},
		{Op: "Copy", Method: "PUT", Level: Object, When: []Cond{HeaderSet("x-ms-copy-source")}, Handle: ok},
		{Op: "Put", Method: "PUT", Level: Object, Handle: ok},
		{Op: "DeleteVersion", Method: "DELETE", Level: Object, When: []Cond{QuerySet("versionid")}, Handle: ok},
		{Op: "Upsert", Method: "POST", Level: Object, When: []Cond{HeaderIs("x-http-method", "MERGE"), HeaderUnset("If-Match")}, Handle: ok},
		{Op: "Merge", Method: "POST", Level: Object, When: []Cond{HeaderIs("x-http-method", "MERGE")}, Handle: ok},
		{Op: "Delete", Method: "DELETE", Level: Object, Handle: ok},
	}
	cases := []struct {
		method, target string
		header         http.Header
		want           string
	}{
		{"PUT", "/c/b?comp=lease", http.Header{"X-Ms-Lease-Action": {"Break"}}, "BreakLease"},
		{"PUT", "/c/b?comp=lease", http.Header{"X-Ms-Lease-Action": {"acquire"}}, "AcquireLease"},
		{"PUT", "/c/b?comp=lease", http.Header{"X-Ms-Lease-Action": {"renew"}}, "Lease"},
		{"PUT", "/c/b?comp=lease", nil, "Lease"},
		{"PUT", "/c/b", http.Header{"X-Ms-Copy-Source": {"u"}, "X-Ms-Blob-Type": {"BlockBlob"}}, "PutFromURL"},
		{"PUT", "/c/b", http.Header{"X-Ms-Copy-Source": {"u"}, "X-Ms-Requires-Sync": {"TRUE"}}, "CopySync"},
		{"PUT", "/c/b", http.Header{"X-Ms-Copy-Source": {"u"}, "X-Ms-Requires-Sync": {"false"}}, "Copy"},
		{"PUT", "/c/b", http.Header{"X-Ms-Requires-Sync": {"true"}}, "Put"},
		{"DELETE", "/c/b?versionid=v", nil, "DeleteVersion"},
		{"DELETE", "/c/b", nil, "Delete"},
		{"POST", "/c/b", http.Header{"X-Http-Method": {"merge"}}, "Upsert"},
		{"POST", "/c/b", http.Header{"X-Http-Method": {"MERGE"}, "If-Match": {"*"}}, "Merge"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.target, nil)
		for k, v := range c.header {
			r.Header[k] = v
		}
		rule, err := table.Match(r, Object)
		if err != nil || rule.Op != c.want {
			t.Errorf("%s %s %v: got %v %v, want %s", c.method, c.target, c.header, rule, err, c.want)
		}
	}
}

// TestMatchAbsenceIsSpecific: a row whose only condition is an absence is
// specific like any row with conditions, so it is tried before a row
// without, even one listed first; when its condition fails, that row
// answers.
func TestMatchAbsenceIsSpecific(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) error { return nil }
	table := Table{
		{Op: "Plain", Method: "PUT", Level: Object, Handle: ok},
		{Op: "NoSource", Method: "PUT", Level: Object, When: []Cond{HeaderUnset("x-ms-copy-source")}, Handle: ok},
	}
	for header, want := range map[string]string{"": "NoSource", "u": "Plain"} {
		h := http.Header{}
		if header != "" {
			h.Set("x-ms-copy-source", header)
		}
		rule, err := table.Lookup("PUT", Object, nil, h)
		if err != nil || rule.Op != want {
			t.Errorf("x-ms-copy-source %q: got %v %v, want %s", header, rule, err, want)
		}
	}
}

// TestSecondaryOnly: an operation offered only on the secondary endpoint
// runs there and is 400 InvalidQueryParameterValue on the primary.
func TestSecondaryOnly(t *testing.T) {
	ran := false
	table := Table{{Op: "GetServiceStats", Method: "GET", Level: Service, Restype: "service", Comp: "stats",
		SecondaryOnly: true, Handle: func(http.ResponseWriter, *http.Request) error { ran = true; return nil }}}
	for _, secondary := range []bool{false, true} {
		ran = false
		r := httptest.NewRequest("GET", "/?restype=service&comp=stats", nil)
		r = r.WithContext(request.With(r.Context(), &request.Info{Secondary: secondary}))
		rule, err := table.Match(r, Service)
		if err != nil {
			t.Fatal(err)
		}
		err = rule.Handle(httptest.NewRecorder(), r)
		if secondary && (err != nil || !ran) {
			t.Errorf("on the secondary: %v, ran %v", err, ran)
		}
		if !secondary && (!azerr.Is(err, azerr.InvalidQueryParameterValue) || ran) {
			t.Errorf("on the primary: %v, ran %v", err, ran)
		}
	}
}
