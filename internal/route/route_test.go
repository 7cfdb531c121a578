package route

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/azerr"
)

func TestMatch(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) error { return nil }
	table := Table{
		{Op: "CreateContainer", Method: "PUT", Level: Container, Restype: "container", Handle: ok},
		{Op: "SetContainerMetadata", Method: "PUT", Level: Container, Restype: "container", Comp: "metadata", Handle: ok},
		{Op: "CopyBlob", Method: "PUT", Level: Object, Header: "x-ms-copy-source", Handle: ok},
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
