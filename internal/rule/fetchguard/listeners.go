package fetchguard

import (
	"fmt"
	"net"
	"net/netip"
)

// listeners are this server's bound addresses, by kind.
type listeners struct {
	// storage are the Blob, Queue, Table and File REST listeners: copy
	// sources like any other (the Blob service reads File sources).
	storage []netip.AddrPort
	// never are the others (the admin listener with its console and
	// /metrics, SMB): never copy sources.
	never []netip.AddrPort
}

// SetListeners records the server's bound listeners once all are bound:
// storage, the REST listeners, are always allowed as copy sources;
// nonStorage, every other listener the process binds, never is, whatever
// the policy says, by any address that reaches it. Call it before serving.
func (g *Guard) SetListeners(storage, nonStorage []string) error {
	var l listeners
	var err error
	if l.storage, err = parseAddrs(storage); err != nil {
		return err
	}
	if l.never, err = parseAddrs(nonStorage); err != nil {
		return err
	}
	g.mu.Lock()
	g.listeners = l
	g.mu.Unlock()
	return nil
}

func parseAddrs(addrs []string) ([]netip.AddrPort, error) {
	out := make([]netip.AddrPort, 0, len(addrs))
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			return nil, fmt.Errorf("fetchguard: listener address %q: %w", a, err)
		}
		out = append(out, netip.AddrPortFrom(plain(ap.Addr()), ap.Port()))
	}
	return out, nil
}

// plain is ip without IPv4-in-IPv6 mapping or zone, as it is compared.
func plain(ip netip.Addr) netip.Addr { return ip.Unmap().WithZone("") }

// isStorage reports whether ap reaches one of the server's storage
// listeners: its bound address, or loopback or any local address when it
// is bound to the unspecified address.
func (g *Guard) isStorage(ap netip.AddrPort) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	ip := plain(ap.Addr())
	for _, s := range g.listeners.storage {
		if s.Port() != ap.Port() {
			continue
		}
		if s.Addr() == ip || s.Addr().IsUnspecified() && onThisMachine(ip, false) || s.Addr().IsLoopback() && ip.IsLoopback() {
			return true
		}
	}
	return false
}

// isNonStorage reports whether ap may reach one of the server's
// non-storage listeners: its port on the listener's bound address or on
// any address of this machine (loopback, the unspecified address, which
// connects to the machine itself, or an interface's address). A listener
// bound to one address is not reached on the others, but its port is
// refused on all of them: a mistaken refusal costs a copy from a local
// service on that port, a mistaken allowance the admin listener.
func (g *Guard) isNonStorage(ap netip.AddrPort) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	ip := plain(ap.Addr())
	for _, n := range g.listeners.never {
		if n.Port() == ap.Port() && (n.Addr() == ip || onThisMachine(ip, true)) {
			return true
		}
	}
	return false
}

// nonStoragePort reports whether port is a non-storage listener's, for a
// source that cannot be judged by address (through a proxy).
func (g *Guard) nonStoragePort(port uint16) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, n := range g.listeners.never {
		if n.Port() == port {
			return true
		}
	}
	return false
}

// onThisMachine reports whether a connection to ip stays on this machine;
// unknown is the answer when the interfaces cannot be listed.
func onThisMachine(ip netip.Addr, unknown bool) bool {
	ip = plain(ip)
	return ip.IsLoopback() || ip.IsUnspecified() || isLocal(ip, unknown)
}

// isLocal reports whether ip is an address of one of this machine's
// interfaces; unknown is the answer when they cannot be listed.
func isLocal(ip netip.Addr, unknown bool) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return unknown
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if local, ok := netip.AddrFromSlice(n.IP); ok && plain(local) == plain(ip) {
				return true
			}
		}
	}
	return false
}
