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
// machine. A plain (non-CONNECT) proxy request, which Go sends for an
// http:// URL, goes to the same Lazuli listener when it names such a host
// on port 80 (Lazuli answers it 400 AccountRequiresHttps, as Azure answers
// an account that requires secure transfer); any other, such as the
// managed-identity endpoint, is refused.
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
	if req.Method == http.MethodConnect {
		_, err = io.WriteString(client, "HTTP/1.1 200 Connection Established\r\n\r\n")
	} else {
		// The first request goes on in origin form; the rest of the
		// connection is relayed as it comes.
		err = req.Write(upstream)
	}
	if err != nil {
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

// target is the Lazuli address a request is relayed to: a CONNECT to port
// 443 of a routed host, or a plain request for http:// on port 80 of one.
func (p *connectProxy) target(req *http.Request) (string, bool) {
	hostPort, wantPort := req.Host, "443"
	if req.Method != http.MethodConnect {
		if req.URL == nil || req.URL.Scheme != "http" {
			return "", false
		}
		hostPort, wantPort = req.URL.Host, "80"
		if req.URL.Port() == "" {
			hostPort = net.JoinHostPort(req.URL.Hostname(), "80")
		}
	}
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil || port != wantPort {
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
