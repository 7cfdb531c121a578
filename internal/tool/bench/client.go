package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// apiVersion is the x-ms-version the lean client sends.
const apiVersion = "2021-08-06"

// client is the lean benchmark client: raw HTTP with Shared Key signing and
// keep-alive, so that the client is not what limits the measurement.
type client struct {
	target Target
	turn   atomic.Uint64 // round-robin over target and its nodes
	key    []byte
	http   *http.Client
}

func newClient(t Target, conns int) (*client, error) {
	key, err := t.keyBytes()
	if err != nil {
		return nil, err
	}
	return &client{target: t, key: key, http: newHTTPClient(conns)}, nil
}

// newHTTPClient is the keep-alive HTTP client of both drivers, with enough
// idle connections kept for conns concurrent requests.
func newHTTPClient(conns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns * 4,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Minute}
}

// call is one request to a service.
type call struct {
	svc    auth.Service
	method string
	path   string // after the account, e.g. "/c/b"
	query  url.Values
	header http.Header
	body   []byte
	// sink receives the response body; nil discards it.
	sink io.Writer
}

// response is what a scenario needs back.
type response struct {
	status int
	header http.Header
	body   []byte // only when the call asked to keep it (sink == keepBody)
	bytes  int64
}

// keepBody asks do to return the body in response.body.
var keepBody = &bytes.Buffer{}

// statusError is a response outside 2xx/304, keyed by its error code.
type statusError struct {
	status int
	code   string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d %s", e.status, e.code) }

// errorKey names an error for the report: the status and the Azure error
// code when the server sent one, whichever driver saw it.
func errorKey(err error) string {
	if status, code, ok := responseStatus(err); ok {
		if code != "" {
			return fmt.Sprintf("%d %s", status, code)
		}
		return fmt.Sprintf("%d", status)
	}
	msg := err.Error()
	if len(msg) > 60 {
		msg = msg[:60]
	}
	return msg
}

func (c *client) do(ctx context.Context, cl call) (response, error) {
	base := c.node().endpoint(cl.svc)
	if base == "" {
		return response{}, fmt.Errorf("target %s has no %s endpoint", c.target.Name, cl.svc)
	}
	u := base + escapePath(cl.path)
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, u, body)
	if err != nil {
		return response{}, err
	}
	for k, v := range cl.header {
		req.Header[k] = v
	}
	req.Header.Set("X-Ms-Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("X-Ms-Version", apiVersion)
	if cl.svc == auth.Table {
		req.Header.Set("DataServiceVersion", "3.0")
		req.Header.Set("MaxDataServiceVersion", "3.0;NetFx")
		if req.Header.Get("Accept") == "" {
			req.Header.Set("Accept", "application/json;odata=nometadata")
		}
	}
	auth.SignSharedKey(req, cl.svc, c.target.Account, c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	switch {
	case cl.sink == keepBody:
		out.body, err = io.ReadAll(resp.Body)
		out.bytes = int64(len(out.body))
	case cl.sink != nil:
		out.bytes, err = io.Copy(cl.sink, resp.Body)
	default:
		out.bytes, err = discard(resp.Body)
	}
	if err != nil {
		return out, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotModified {
		return out, &statusError{status: resp.StatusCode, code: resp.Header.Get("X-Ms-Error-Code")}
	}
	return out, nil
}

// escapePath escapes each segment of a resource path, keeping the slashes
// and the parentheses and quotes of table entity paths.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = unescapeEntityPunctuation.Replace(url.PathEscape(s))
	}
	return strings.Join(parts, "/")
}

// unescapeEntityPunctuation is built once: a Replacer prepares its lookup
// tables on first use, which cost the client more than the request's
// signing when it was built per call.
var unescapeEntityPunctuation = strings.NewReplacer("%28", "(", "%29", ")", "%27", "'", "%2C", ",", "%3D", "=")

// discardBuffers are large read buffers: reading a 1 MiB body through the
// transport's 4 KiB bufio in small chunks cost the client more CPU than the
// server spent sending it, and the client shares the machine with the server.
var discardBuffers = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// discard reads r to its end and returns how many bytes it had.
func discard(r io.Reader) (int64, error) {
	bp := discardBuffers.Get().(*[]byte)
	defer discardBuffers.Put(bp)
	var n int64
	for {
		m, err := r.Read(*bp)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// node picks the target node for the next request, in turn.
func (c *client) node() Target {
	if len(c.target.Nodes) == 0 {
		return c.target
	}
	i := int(c.turn.Add(1) % uint64(len(c.target.Nodes)+1))
	if i == 0 {
		return c.target
	}
	return c.target.Nodes[i-1]
}
