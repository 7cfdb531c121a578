package fetchguard

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
)

// Through a proxy only sources allowed by name go; the dialer, which sees
// only the proxy, cannot judge where the name resolves.
func TestProxiedSourcesMustBeAllowedByName(t *testing.T) {
	proxy, _ := url.Parse("http://127.0.0.1:3128")
	saved := environmentProxy
	environmentProxy = func(*http.Request) (*url.URL, error) { return proxy, nil }
	defer func() { environmentProxy = saved }()
	for _, tc := range []struct {
		allow  []string
		source string
		ok     bool
	}{
		{[]string{"*"}, "https://anything.example/x", true},
		{[]string{"*.core.windows.net"}, "https://acct.blob.core.windows.net/c/b", true},
		{[]string{"files.example"}, "https://files.example/x", true},
		{[]string{"files.example"}, "https://other.example/x", false},
		{[]string{"10.0.0.0/8"}, "https://10.1.2.3/x", false},
		{nil, "https://public.example/x", false}, // the public-only default judges addresses
	} {
		g := New(tc.allow, false)
		req, _ := http.NewRequest(http.MethodGet, tc.source, nil)
		u, err := g.proxy(req)
		switch {
		case tc.ok && (err != nil || u != proxy):
			t.Errorf("%v %s: proxy %v, %v; want the proxy", tc.allow, tc.source, u, err)
		case !tc.ok && !errors.Is(err, ErrRefused):
			t.Errorf("%v %s: proxy %v, %v; want refused", tc.allow, tc.source, u, err)
		}
	}
	environmentProxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	req, _ := http.NewRequest(http.MethodGet, "https://public.example/x", nil)
	if u, err := New(nil, false).proxy(req); u != nil || err != nil {
		t.Errorf("without a proxy: %v, %v", u, err)
	}
}

// A proxied source on a non-storage listener's port is refused when its
// host is, or resolves to, this machine: the proxy would connect there.
func TestProxiedSourceOnNonStoragePortRefused(t *testing.T) {
	proxy, _ := url.Parse("http://proxy.example:3128")
	saved := environmentProxy
	environmentProxy = func(*http.Request) (*url.URL, error) { return proxy, nil }
	defer func() { environmentProxy = saved }()
	g := New([]string{"*"}, false)
	if err := g.SetListeners([]string{"0.0.0.0:10000"}, []string{"0.0.0.0:10009"}); err != nil {
		t.Fatal(err)
	}
	for source, refused := range map[string]bool{
		"http://127.0.0.1:10009/api/download": true,
		"http://localhost:10009/metrics":      true,
		"http://[::ffff:127.0.0.1]:10009/":    true,
		"http://93.184.216.34:10009/x":        false, // not this machine
		"http://127.0.0.1:10000/acct/c/b":     false, // a storage listener
	} {
		req, _ := http.NewRequest(http.MethodGet, source, nil)
		u, err := g.proxy(req)
		if got := errors.Is(err, errNonStorage); got != refused {
			t.Errorf("%s: proxy %v, %v; want refused=%v", source, u, err, refused)
		}
	}
}
