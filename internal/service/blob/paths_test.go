package blob

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
)

func TestValidContainerName(t *testing.T) {
	for name, ok := range map[string]bool{"abc": true, "a1-b2": true, "$root": true, "$logs": true, "$web": true,
		"ab": false, "ABC": false, "a--b": false, "-ab": false, "ab-": false, "a.b": false, "$other": false, "": false} {
		if got := validContainerName(name) == nil; got != ok {
			t.Errorf("validContainerName(%q) = %v, want %v", name, got, ok)
		}
	}
}

func TestParsePath(t *testing.T) {
	cases := []struct {
		path, query string
		want        target
		level       route.Level
	}{
		{"", "comp=list", target{}, route.Service},
		{"/", "", target{}, route.Service},
		{"/c", "restype=container", target{Container: "c"}, route.Container},
		{"/c/", "", target{Container: "c"}, route.Container},
		{"/c/b/d", "", target{Container: "c", Blob: "b/d"}, route.Object},
		{"/blob", "", target{Container: rootContainer, Blob: "blob"}, route.Object},
	}
	for _, tc := range cases {
		r := &http.Request{URL: &url.URL{RawQuery: tc.query}}
		got, level := parsePath(tc.path, r)
		if got != tc.want || level != tc.level {
			t.Errorf("parsePath(%q, %q) = %+v, %v", tc.path, tc.query, got, level)
		}
	}
}
