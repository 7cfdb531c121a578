package fetchguard

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestPublic(t *testing.T) {
	cases := map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "93.184.216.34": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "fe80::1": false, "fc00::1": false, "fd12::1": false, "0.0.0.0": false, "::": false,
		"100.64.0.1": false, "224.0.0.1": false, "ff02::1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false,
		"240.0.0.1": false, "198.18.0.1": false,
	}
	for ip, want := range cases {
		if got := Public(netip.MustParseAddr(ip)); got != want {
			t.Errorf("Public(%s) = %v, want %v", ip, got, want)
		}
	}
}

func TestPolicies(t *testing.T) {
	at := func(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
	cases := []struct {
		name        string
		allow       []string
		allLoopback bool
		host        string
		addr        string
		want        bool
	}{
		{"emulator allows loopback", nil, true, "localhost", "127.0.0.1:8080", true},
		{"emulator allows private", nil, true, "db", "10.0.0.5:80", true},
		{"shared refuses loopback", nil, false, "localhost", "127.0.0.1:8080", false},
		{"shared refuses metadata service", nil, false, "169.254.169.254", "169.254.169.254:80", false},
		{"shared refuses a public name resolving to private", nil, false, "evil.example", "10.0.0.5:80", false},
		{"shared allows public", nil, false, "example.com", "93.184.216.34:443", true},
		{"star allows all", []string{"*"}, false, "localhost", "127.0.0.1:1", true},
		{"listed name", []string{"files.example.com"}, false, "files.example.com", "10.0.0.9:443", true},
		{"unlisted name", []string{"files.example.com"}, false, "other.example.com", "93.184.216.34:443", false},
		{"wildcard name", []string{"*.example.com"}, false, "a.b.example.com", "93.184.216.34:443", true},
		{"wildcard is not the apex", []string{"*.example.com"}, false, "example.com", "93.184.216.34:443", false},
		{"listed IP", []string{"127.0.0.1"}, false, "127.0.0.1", "127.0.0.1:9000", true},
		{"listed CIDR", []string{"10.0.0.0/8"}, false, "10.1.1.1", "10.1.1.1:80", true},
		{"CIDR outside", []string{"10.0.0.0/8"}, false, "11.1.1.1", "11.1.1.1:80", false},
	}
	for _, c := range cases {
		g := New(c.allow, c.allLoopback)
		err := g.CheckURL(c.host)
		if err == nil {
			err = g.checkAddr(c.host, at(c.addr))
		}
		if got := err == nil; got != c.want {
			t.Errorf("%s: allowed=%v (%v), want %v", c.name, got, err, c.want)
		}
		if err != nil && !azerr.Is(err, azerr.CannotVerifyCopySource) && !errors.Is(err, ErrRefused) {
			t.Errorf("%s: refused with %v", c.name, err)
		}
	}
}

// TestSelfAlwaysAllowed: the server's own listeners stay reachable on a
// shared server (the Blob service reads File service sources over HTTP).
func TestSelfAlwaysAllowed(t *testing.T) {
	g := New(nil, false)
	if err := g.SetListeners([]string{"127.0.0.1:10003", "0.0.0.0:10004"}, nil); err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{"127.0.0.1:10003": true, "127.0.0.1:10004": true, "127.0.0.1:10005": false} {
		if err := g.checkAddr("localhost", netip.MustParseAddrPort(addr)); (err == nil) != want {
			t.Errorf("%s: %v, want allowed=%v", addr, err, want)
		}
	}
}
