package fetchguard

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// policies are every kind of --copySourceAllow: none of them lets a copy
// reach a non-storage listener.
var policies = []struct {
	name        string
	allow       []string
	allLoopback bool
}{
	{"default, loopback emulator", nil, true},
	{"default, shared server", nil, false},
	{"star", []string{"*"}, false},
	{"listed loopback IP", []string{"127.0.0.1", "::1"}, false},
	{"listed CIDRs", []string{"0.0.0.0/0", "::/0"}, false},
	{"listed name", []string{"localhost"}, false},
}

// localAddr is an address of one of this machine's interfaces that is not
// loopback, or the zero Addr when there is none.
func localAddr(t *testing.T) netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && !ip.Unmap().IsLoopback() && !ip.IsLinkLocalUnicast() {
				return ip.Unmap()
			}
		}
	}
	return netip.Addr{}
}

// TestNonStorageListenerRefusedAtEveryAddress: the dial check refuses a
// non-storage listener's port by every address that reaches it, under
// every policy; the storage listeners and other ports stay allowed.
func TestNonStorageListenerRefusedAtEveryAddress(t *testing.T) {
	local := localAddr(t)
	type dial struct {
		addr    string
		refused bool
	}
	cases := []struct {
		bound string // the non-storage listener's bound address
		dials []dial
	}{
		{"127.0.0.1:10009", []dial{{"127.0.0.1:10009", true}, {"127.0.0.2:10009", true}, {"[::1]:10009", true},
			{"[::ffff:127.0.0.1]:10009", true}, {"0.0.0.0:10009", true}, {"[::]:10009", true}, {"127.0.0.1:10010", false}}},
		{"0.0.0.0:10445", []dial{{"127.0.0.1:10445", true}, {"[::ffff:127.0.0.1]:10445", true}, {"0.0.0.0:10445", true},
			{"93.184.216.34:10445", false}}},
		{"[::]:10009", []dial{{"[::1]:10009", true}, {"127.0.0.1:10009", true}, {"[::ffff:127.0.0.1]:10009", true}}},
		{"[::ffff:127.0.0.1]:10009", []dial{{"127.0.0.1:10009", true}}},
	}
	if local.IsValid() {
		mapped := netip.AddrFrom16(local.As16())
		cases = append(cases,
			struct {
				bound string
				dials []dial
			}{"0.0.0.0:10445", []dial{{netip.AddrPortFrom(local, 10445).String(), true},
				{netip.AddrPortFrom(mapped, 10445).String(), true}}},
			struct {
				bound string
				dials []dial
			}{netip.AddrPortFrom(local, 10009).String(), []dial{{netip.AddrPortFrom(local, 10009).String(), true},
				{netip.AddrPortFrom(mapped, 10009).String(), true}, {"127.0.0.1:10009", true}}})
	} else {
		t.Log("no interface address besides loopback: the local-address rows are left out")
	}
	for _, p := range policies {
		for _, c := range cases {
			g := New(p.allow, p.allLoopback)
			if err := g.SetListeners([]string{"127.0.0.1:10000", "0.0.0.0:10003"}, []string{c.bound}); err != nil {
				t.Fatal(err)
			}
			for _, d := range c.dials {
				err := g.checkAddr("source.example", netip.MustParseAddrPort(d.addr))
				refusedHere := errors.Is(err, errNonStorage)
				if refusedHere != d.refused {
					t.Errorf("%s, listener on %s, dial %s: %v, want refused as non-storage=%v", p.name, c.bound, d.addr, err, d.refused)
				}
			}
			for _, storage := range []string{"127.0.0.1:10000", "127.0.0.1:10003", "[::ffff:127.0.0.1]:10003"} {
				if err := g.checkAddr("localhost", netip.MustParseAddrPort(storage)); err != nil {
					t.Errorf("%s: storage listener %s refused: %v", p.name, storage, err)
				}
			}
		}
	}
}

// TestSetListenersRejectsBadAddresses: an address that is not IP:port is
// an error, not a listener silently left unguarded.
func TestSetListenersRejectsBadAddresses(t *testing.T) {
	for _, bad := range []string{"localhost:10009", "10009", ""} {
		if err := New(nil, true).SetListeners(nil, []string{bad}); err == nil {
			t.Errorf("SetListeners(%q) accepted", bad)
		}
	}
}

// adminStub is a stand-in for a non-storage listener that counts what
// reaches it.
type adminStub struct {
	*httptest.Server
	mu   sync.Mutex
	hits int
}

func newAdminStub(t *testing.T) *adminStub {
	a := &adminStub{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a.mu.Lock()
		a.hits++
		a.mu.Unlock()
		_, _ = w.Write([]byte("private"))
	}))
	t.Cleanup(a.Close)
	return a
}

// TestRedirectToNonStorageListenerRefused: an allowed storage listener
// that answers with a redirect to the admin listener's port, by its bound
// address or another spelling of it, is followed to a refused dial: the
// admin listener is never reached, and the service answers 403
// CannotVerifyCopySource.
func TestRedirectToNonStorageListenerRefused(t *testing.T) {
	admin := newAdminStub(t)
	adminURL, _ := url.Parse(admin.URL)
	for _, target := range []string{admin.URL, "http://localhost:" + adminURL.Port(), "http://[::ffff:127.0.0.1]:" + adminURL.Port()} {
		storage := httptest.NewServer(http.RedirectHandler(target+"/api/download?container=private", http.StatusFound))
		defer storage.Close()
		g := New([]string{"*"}, false)
		if err := g.SetListeners([]string{storage.Listener.Addr().String()}, []string{admin.Listener.Addr().String()}); err != nil {
			t.Fatal(err)
		}
		resp, err := g.Client(10 * time.Second).Get(storage.URL + "/devstoreaccount1/c/b")
		if err == nil {
			resp.Body.Close()
			t.Fatalf("redirect to %s: fetched, status %d", target, resp.StatusCode)
		}
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("redirect to %s: %v, want a refusal", target, err)
		}
		answer := Refusal(err, "storage")
		if !azerr.Is(answer, azerr.CannotVerifyCopySource) || !strings.Contains(answer.Error(), "never copy sources") {
			t.Errorf("redirect to %s: answered %v", target, answer)
		}
	}
	if admin.hits != 0 {
		t.Errorf("the admin listener was reached %d times", admin.hits)
	}
}
