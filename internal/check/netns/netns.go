// Package netns gives tests network namespaces joined to the host's by veth
// pairs, so that a server process is reached from another address than
// loopback and reaches the host's servers across a link, as a container or
// a second machine would: the image test starts the image's command in one,
// the cluster tests start each node in one of its own. HostAddress gives
// the host an address every such namespace reaches, for the servers those
// processes use (the test PostgreSQL and S3 servers, scripts/postgres.sh
// and scripts/s3.sh bound to it), where the host's loopback is the
// namespace's own. Making namespaces needs root and iproute2's ip.
package netns

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Require skips t where it cannot make namespaces: as another user than
// root, or without iproute2's ip (with its netns command) and util-linux's
// nsenter. Under CI, which runs as root and installs both, it fails t
// instead, so that the tests do not pass by not running.
func Require(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making network namespaces needs root")
	}
	_, nsErr := exec.LookPath("nsenter")
	out, ipErr := exec.Command("ip", "netns", "list").CombinedOutput()
	if ipErr == nil && nsErr == nil {
		return
	}
	msg := fmt.Sprintf("making network namespaces needs iproute2's ip netns (%v: %s) and util-linux's nsenter (%v)", ipErr, out, nsErr)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Link is a veth pair on a /30 of its own: one end in the host's
// namespace, the other in a namespace of its own.
type Link struct {
	// HostIP is the host end's address, NSIP the namespace end's.
	HostIP, NSIP string
	// HostEnd names the host end's interface; deleting it deletes both.
	HostEnd string
}

// links and namespaces count the pairs and the named namespaces this
// process made, to give each its own names (and each pair its /30).
var links, namespaces atomic.Int32

// newLink picks the names and addresses of this process's next pair: a
// /30 of 10.213.P.0/24, P from the process id, so that test binaries
// running side by side rarely share a /24.
func newLink() (l Link, nsEnd string) {
	k := int(links.Add(1)) - 1
	if k >= 64 {
		panic("netns: more than 64 links in one test process")
	}
	pid := os.Getpid()
	l.HostEnd, nsEnd = fmt.Sprintf("lz%d-%dh", pid, k), fmt.Sprintf("lz%d-%dn", pid, k)
	l.HostIP, l.NSIP = fmt.Sprintf("10.213.%d.%d", pid%250, 4*k+1), fmt.Sprintf("10.213.%d.%d", pid%250, 4*k+2)
	return l, nsEnd
}

// Namespace is a named network namespace (ip netns add) linked to the
// host's.
type Namespace struct {
	Name string
	Link
}

// New makes a namespace linked to the host's, deleted when the test ends.
func New(t testing.TB) *Namespace {
	t.Helper()
	name := fmt.Sprintf("lzt%d-%d", os.Getpid(), namespaces.Add(1))
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	l := link(t, name, []string{"ip", "-n", name})
	return &Namespace{Name: name, Link: l}
}

// Start starts cmd inside the namespace, which is linked and has its
// loopback up before cmd runs, so a server binding 127.0.0.1 at once finds
// it (a process made with CLONE_NEWNET and linked after it started could
// bind before its loopback was up). cmd keeps its own SysProcAttr (a chroot,
// a credential), which ip netns exec would not allow: the child is forked
// from an OS thread moved into the namespace with setns(2). That thread
// stays until the test ends, as a Pdeathsig set on cmd fires when the
// thread that forked the child exits; then it exits with its goroutine,
// never serving another.
func (n *Namespace) Start(t testing.TB, cmd *exec.Cmd) error {
	f, err := os.Open("/run/netns/" + n.Name)
	if err != nil {
		return err
	}
	defer f.Close()
	started, release := make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			started <- fmt.Errorf("setns %s: %w", n.Name, err)
			return
		}
		started <- cmd.Start()
		<-release
	}()
	t.Cleanup(func() { close(release) })
	return <-started
}

// Command is a command that runs name with args inside the namespace.
func (n *Namespace) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", n.Name, name}, args...)...)
}

// link moves a new pair's far end into the namespace target names (a pid
// or a netns name, as ip link set ... netns takes), addresses both ends
// and brings them and the namespace's loopback up; inNS is the ip command
// line run inside the namespace.
func link(t testing.TB, target string, inNS []string) Link {
	t.Helper()
	l, nsEnd := newLink()
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", l.HostEnd).Run() })
	for _, c := range [][]string{
		{"ip", "link", "add", l.HostEnd, "type", "veth", "peer", "name", nsEnd},
		{"ip", "link", "set", nsEnd, "netns", target},
		{"ip", "addr", "add", l.HostIP + "/30", "dev", l.HostEnd},
		{"ip", "link", "set", l.HostEnd, "up"},
		append(inNS[:len(inNS):len(inNS)], "addr", "add", l.NSIP+"/30", "dev", nsEnd),
		append(inNS[:len(inNS):len(inNS)], "link", "set", nsEnd, "up"),
		append(inNS[:len(inNS):len(inNS)], "link", "set", "lo", "up"),
		// As a machine's default gateway: the host's other addresses,
		// HostAddress's among them, are reached across the link.
		append(inNS[:len(inNS):len(inNS)], "route", "add", "default", "via", l.HostIP),
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	return l
}

// hostAddresses counts the addresses HostAddress made in this process.
var hostAddresses atomic.Int32

// HostAddress adds an address to the host's loopback device until the test
// ends and returns it: 10.214.P.K/32, P from the process id as for links.
// Every namespace New links reaches it across its link (by its default
// route), as a server on another machine, where 127.0.0.1 inside the
// namespace is the namespace's own; no other machine routes to it, so a
// test server without a password may listen on it.
func HostAddress(t testing.TB) string {
	t.Helper()
	k := int(hostAddresses.Add(1))
	if k > 250 {
		t.Fatal("netns: more than 250 host addresses in one test process")
	}
	addr := fmt.Sprintf("10.214.%d.%d", os.Getpid()%250, k)
	if out, err := exec.Command("ip", "addr", "add", addr+"/32", "dev", "lo").CombinedOutput(); err != nil {
		t.Fatalf("ip addr add %s/32 dev lo: %v\n%s", addr, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "addr", "del", addr+"/32", "dev", "lo").Run() })
	return addr
}
