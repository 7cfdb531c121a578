package main

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
)

// connectProxy is the only way out the SDK tests have: an HTTP CONNECT
// proxy on loopback that tunnels "<account>.<service>.core.windows.net:443"
// (and "<account>-secondary...") to the Lazuli listener of that service and
// refuses every other destination, so nothing a test sends leaves the
// machine. Plain (non-CONNECT) proxy requests, which Go sends for http://
// URLs such as the managed-identity endpoint, are refused as well.
type connectProxy struct {
	listener net.Listener
	// route maps a CONNECT target host (no port) to a Lazuli address.
	route func(host string) (string, bool)

	mu      sync.Mutex
	refused map[string]int // destinations refused, for the run's summary
}

func startProxy(route func(host string) (string, bool)) (*connectProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &connectProxy{listener: l, route: route, refused: map[string]int{}}
	go p.serve()
	return p, nil
}

// URL is the value of HTTPS_PROXY and HTTP_PROXY for the test processes.
func (p *connectProxy) URL() string { return "http://" + p.listener.Addr().String() }

func (p *connectProxy) Close() error { return p.listener.Close() }

// Refused returns how often each refused destination was asked for.
func (p *connectProxy) Refused() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.refused))
	for k, v := range p.refused {
		out[k] = v
	}
	return out
}

func (p *connectProxy) serve() {
	for {
		conn, err := p.listener.Accept()
		if err != nil {
			return
		}
		go p.handle(conn)
	}
}

func (p *connectProxy) handle(client net.Conn) {
	defer client.Close()
	reader := bufio.NewReader(client)
	req, err := http.ReadRequest(reader)
	if err != nil {
		return
	}
	target, ok := p.target(req)
	if !ok {
		p.refuse(client, req)
		return
	}
	upstream, err := net.Dial("tcp", target)
	if err != nil {
		log.Printf("proxy: %s: %v", req.Host, err)
		io.WriteString(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		return
	}
	defer upstream.Close()
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		// Bytes the client sent after its CONNECT request (a TLS hello
		// pipelined early) are in reader's buffer: copy from reader.
		io.Copy(upstream, reader)
		if tcp, ok := upstream.(*net.TCPConn); ok {
			tcp.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		io.Copy(client, upstream)
		if tcp, ok := client.(*net.TCPConn); ok {
			tcp.CloseWrite()
		}
		done <- struct{}{}
	}()
	<-done
	<-done
}

// target is the Lazuli address a CONNECT request is tunnelled to; only
// port 443 of a routed host qualifies.
func (p *connectProxy) target(req *http.Request) (string, bool) {
	if req.Method != http.MethodConnect {
		return "", false
	}
	host, port, err := net.SplitHostPort(req.Host)
	if err != nil || port != "443" {
		return "", false
	}
	return p.route(strings.ToLower(host))
}

func (p *connectProxy) refuse(client net.Conn, req *http.Request) {
	dest := req.Host
	if req.Method != http.MethodConnect && req.URL != nil {
		dest = req.URL.Scheme + "://" + req.URL.Host
	}
	p.mu.Lock()
	p.refused[dest]++
	p.mu.Unlock()
	io.WriteString(client, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 52\r\n\r\nthe conformance proxy reaches only Lazuli's services")
}
