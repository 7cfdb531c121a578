package bench

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// nullServer is a trivial Go HTTP server that answers every request with
// the success status the real service gives it, the headers the real answer
// carries (names and value sizes as Lazuli sends them), and a body of the
// size the current scenario reads: what this machine's HTTP stack allows.
// The status matters to the Azure SDK clients, which accept only the
// documented one. It builds its answers once and allocates nothing of its
// own per request, so that its CPU per request is net/http's alone.
type nullServer struct {
	body atomic.Pointer[nullBody]
	srv  *http.Server
	url  string
}

// nullBody is the body GETs are answered with, and the headers that
// describe it, built once per size.
type nullBody struct {
	bytes         []byte
	contentLength []string
	contentMD5    []string
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

// setBody sets the size of the GET bodies. A body is a JSON object padded
// to that size, so that the SDK's table reads, which decode it, succeed; a
// blob read does not look at its bytes.
func (n *nullServer) setBody(size int) {
	b := make([]byte, size)
	for i := range b {
		b[i] = '0'
	}
	if size >= len(`{"n":""}`) {
		copy(b, `{"n":"`)
		copy(b[size-2:], `"}`)
	}
	sum := md5.Sum(b)
	n.body.Store(&nullBody{bytes: b, contentLength: []string{strconv.Itoa(size)},
		contentMD5: []string{base64.StdEncoding.EncodeToString(sum[:])}})
}

// The headers of the null server's answers, as Lazuli sends them for the
// scenarios' operations (Azure REST: Get Blob, Put Blob, Query Entity and
// the common response headers), with fixed values of the same length.
var (
	nullCommonHeaders = headerOf(
		"Server", "Lazuli-Blob/1.0",
		"X-Ms-Request-Id", "00000000-0000-0000-0000-000000000000",
		"X-Ms-Version", apiVersion)
	// nullVersionHeaders are the version headers of an answer about a blob
	// or a queue message (not a table entity's, not a deletion's).
	nullVersionHeaders = headerOf(
		"ETag", `"0x8D000000000000"`,
		"Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
	nullGetBlobHeaders = headerOf(
		"Accept-Ranges", "bytes",
		"Content-Type", "application/octet-stream",
		"X-Ms-Blob-Type", "BlockBlob",
		"X-Ms-Creation-Time", "Mon, 01 Jan 2024 00:00:00 GMT",
		"X-Ms-Lease-State", "available",
		"X-Ms-Lease-Status", "unlocked",
		"X-Ms-Server-Encrypted", "true")
	nullPutBlobHeaders = headerOf(
		"Content-MD5", "AAAAAAAAAAAAAAAAAAAAAA==",
		"X-Ms-Content-Crc64", "AAAAAAAAAAA=",
		"X-Ms-Request-Server-Encrypted", "true")
	nullGetEntityHeaders = headerOf(
		"Cache-Control", "no-cache",
		"Content-Type", "application/json;odata=nometadata;streaming=true;charset=utf-8",
		"DataServiceVersion", "3.0;",
		"ETag", `W/"datetime'2024-01-01T00%3A00%3A00.0000000Z'"`,
		"X-Content-Type-Options", "nosniff")
	nullBatchHeaders = headerOf("Content-Type", "multipart/mixed; boundary="+nullBatchBoundary)
	nullBatchLength  = []string{strconv.Itoa(len(nullBatchBody))}
	nullNoLength     = []string{"0"}
)

// headerOf builds a header from name, value pairs, each name in its
// canonical form.
func headerOf(pairs ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(pairs); i += 2 {
		h.Set(pairs[i], pairs[i+1])
	}
	return h
}

// addHeaders copies from's entries into h, sharing their value slices,
// which nothing changes after they are built.
func addHeaders(h, from http.Header) {
	for k, v := range from {
		h[k] = v
	}
}

// The answer to an entity group transaction: a batch holding an empty
// changeset, which the SDK reads as every operation succeeding.
const (
	nullBatchBoundary = "batchresponse_00000000-0000-0000-0000-000000000000"
	nullBatchBody     = "--" + nullBatchBoundary + "\r\nContent-Type: multipart/mixed; boundary=changesetresponse_0\r\n\r\n" +
		"--changesetresponse_0--\r\n\r\n--" + nullBatchBoundary + "--\r\n"
)

// nullStatus is the success status the real service answers r with, for
// the operations the scenarios perform.
func nullStatus(r *http.Request) int {
	switch r.Method {
	case http.MethodPut:
		// Creations and writes are 201; lease actions other than acquire
		// are 200.
		if hasQueryParam(r, "comp", "lease") && !strings.EqualFold(r.Header.Get("X-Ms-Lease-Action"), "acquire") {
			return http.StatusOK
		}
		return http.StatusCreated
	case http.MethodPost:
		switch {
		case strings.HasSuffix(r.URL.Path, "/$batch"):
			return http.StatusAccepted
		case strings.Contains(r.Header.Get("Prefer"), "return-no-content"):
			return http.StatusNoContent
		}
		return http.StatusCreated // a queue message, a table, an entity
	case http.MethodDelete:
		// Containers and shares are deleted asynchronously (202); queues,
		// messages and tables at once (204).
		if hasQueryParam(r, "restype", "") {
			return http.StatusAccepted
		}
		return http.StatusNoContent
	case "MERGE", http.MethodPatch:
		return http.StatusNoContent
	}
	return http.StatusOK
}

// hasQueryParam says whether r's query has name, with value unless value is
// empty, without parsing the whole query into a map.
func hasQueryParam(r *http.Request, name, value string) bool {
	for rest := r.URL.RawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k == name && (value == "" || v == value) {
			return true
		}
	}
	return false
}

// nullBodyPath is where a benchmark in another process sets the size of the
// null server's GET bodies (POST ?size=N). No storage request has a path
// starting with a dot segment, so it cannot collide with a scenario's.
const nullBodyPath = "/.lazuli-null/body"

// nullControl sets the size of the bodies the null target answers GETs with,
// before each scenario: in this process, or over HTTP in a child.
type nullControl interface {
	setBodySize(ctx context.Context, size int) error
}

func (n *nullServer) setBodySize(_ context.Context, size int) error {
	n.setBody(size)
	return nil
}

// remoteNull is a null server in another process.
type remoteNull struct{ url string }

func (n remoteNull) setBodySize(ctx context.Context, size int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url+nullBodyPath+"?size="+strconv.Itoa(size), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("null server: setting the body size answered %s", resp.Status)
	}
	return nil
}

func (n *nullServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == nullBodyPath {
		n.serveBodySize(w, r)
		return
	}
	// Drain the request body as a real server must; io.Discard reads it
	// with pooled buffers.
	if r.Body != http.NoBody {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	h := w.Header()
	addHeaders(h, nullCommonHeaders)
	status := nullStatus(r)
	// Table requests carry DataServiceVersion (indexed in its canonical
	// form: Get would allocate to canonicalise it).
	table := len(r.Header["Dataserviceversion"]) > 0
	if !table && r.Method != http.MethodDelete {
		addHeaders(h, nullVersionHeaders)
	}
	var body []byte
	switch {
	case r.Method == http.MethodGet:
		nb := n.body.Load()
		body, h["Content-Length"] = nb.bytes, nb.contentLength
		if table {
			addHeaders(h, nullGetEntityHeaders)
		} else {
			addHeaders(h, nullGetBlobHeaders)
			h["Content-Md5"] = nb.contentMD5
		}
		if size, ok := rangeSize(r); ok && size < len(body) {
			body, status = body[:size], http.StatusPartialContent
			h.Set("Content-Length", strconv.Itoa(size))
		}
	case status == http.StatusAccepted && r.Method == http.MethodPost:
		body, h["Content-Length"] = []byte(nullBatchBody), nullBatchLength
		addHeaders(h, nullBatchHeaders)
	case r.Method == http.MethodPut && !table:
		addHeaders(h, nullPutBlobHeaders)
		h["Content-Length"] = nullNoLength
	case status != http.StatusNoContent:
		h["Content-Length"] = nullNoLength
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (n *nullServer) serveBodySize(w http.ResponseWriter, r *http.Request) {
	size, err := strconv.Atoi(r.URL.Query().Get("size"))
	if r.Method != http.MethodPost || err != nil || size < 0 || size > 64<<20 {
		http.Error(w, "POST ?size=N (0 to 64 MiB)", http.StatusBadRequest)
		return
	}
	n.setBody(size)
	w.WriteHeader(http.StatusNoContent)
}

// rangeSize is the length of the byte range a GET asks for, if it asks for
// a bounded one.
func rangeSize(r *http.Request) (int, bool) {
	h := r.Header.Get("X-Ms-Range")
	if h == "" {
		h = r.Header.Get("Range")
	}
	first, last, ok := strings.Cut(strings.TrimPrefix(h, "bytes="), "-")
	if !ok {
		return 0, false
	}
	a, err1 := strconv.Atoi(first)
	b, err2 := strconv.Atoi(last)
	if err1 != nil || err2 != nil || b < a {
		return 0, false
	}
	return b - a + 1, true
}

func (n *nullServer) close() { _ = n.srv.Close() }

// NullTarget starts the null server in this process and returns it as a
// target with a close function.
func NullTarget() (Target, func(), error) {
	n, err := startNull()
	if err != nil {
		return Target{}, nil, err
	}
	return nullTarget(n.url, n), n.close, nil
}

func nullTarget(url string, control nullControl) Target {
	return Target{Name: "null", BlobURL: url + "/acct", QueueURL: url + "/acct", TableURL: url + "/acct",
		FileURL: url + "/acct", Account: "acct", Key: "a2V5", null: control}
}

// nullAnnouncement starts the line ServeNull prints when it is ready.
const nullAnnouncement = "null server listening on "

// ServeNull runs the null server on addr until ctx ends, after printing its
// URL on out: the body of the null target when it runs as a process of its
// own, apart from the load generator.
func ServeNull(ctx context.Context, addr string, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	n := &nullServer{url: "http://" + ln.Addr().String()}
	n.setBody(0)
	n.srv = &http.Server{Handler: n, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintln(out, nullAnnouncement+n.url)
	go func() {
		<-ctx.Done()
		n.close()
	}()
	if err := n.srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// NullChildReady recognises ServeNull's announcement in a child's output,
// for StartChild.
func NullChildReady(line string) (Target, bool) {
	url, ok := strings.CutPrefix(line, nullAnnouncement)
	if !ok {
		return Target{}, false
	}
	return nullTarget(url, remoteNull{url: url}), true
}
