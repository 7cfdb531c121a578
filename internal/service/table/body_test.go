package table_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// TestMalformedChunkedBody: a signed request whose chunked body cannot be
// decoded is the client's fault, 400, as in the Blob and File services.
// Before, the Table service passed the transport's error through as a 500.
func TestMalformedChunkedBody(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	u, err := url.Parse(e.in.TableURL + "Tables")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, u.String(), nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-ms-version", "2019-02-02")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Accept", "application/json;odata=nometadata")
	auth.SignSharedKey(req, auth.Table, lazulitest.Account, lazulitest.KeyBytes())
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n", u.RequestURI(), u.Host)
	for k, vs := range req.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\nzz-not-hex\r\n{}\r\n0\r\n\r\n")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("malformed chunked body: %d %s, want 400", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
}
