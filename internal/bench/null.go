package bench

import (
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// nullServer is a trivial Go HTTP server that answers every request with
// 200, the headers a storage response carries, and a body of the size the
// current scenario reads: what this machine's HTTP stack allows.
type nullServer struct {
	body atomic.Pointer[[]byte]
	srv  *http.Server
	url  string
}

func startNull() (*nullServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n := &nullServer{url: "http://" + ln.Addr().String()}
	n.setBody(0)
	n.srv = &http.Server{Handler: n, ReadHeaderTimeout: 10 * time.Second}
	go n.srv.Serve(ln)
	return n, nil
}

func (n *nullServer) setBody(size int) {
	b := make([]byte, size)
	n.body.Store(&b)
}

func (n *nullServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Drain the request body as a real server must.
	buf := make([]byte, 32*1024)
	for {
		if _, err := r.Body.Read(buf); err != nil {
			break
		}
	}
	h := w.Header()
	h.Set("x-ms-request-id", "00000000-0000-0000-0000-000000000000")
	h.Set("x-ms-version", apiVersion)
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	h.Set("ETag", `"0x8D000000000000"`)
	h.Set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
	var body []byte
	if r.Method == http.MethodGet {
		body = *n.body.Load()
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func (n *nullServer) close() { _ = n.srv.Close() }

// NullTarget starts the null server and returns it as a target with a
// close function.
func NullTarget() (Target, func(), error) {
	n, err := startNull()
	if err != nil {
		return Target{}, nil, err
	}
	t := Target{Name: "null", BlobURL: n.url + "/acct", QueueURL: n.url + "/acct", TableURL: n.url + "/acct",
		FileURL: n.url + "/acct", Account: "acct", Key: "a2V5", null: n}
	return t, n.close, nil
}
