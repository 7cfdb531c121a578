package table_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestBatchOverLimitAnswered413: an entity group transaction may carry at
// most 4 MiB ("Performing entity group transactions", Requirements for
// entity group transactions); a larger one is 413 RequestBodyTooLarge. A
// client that sends its whole body before reading the answer, as the
// JavaScript and Python SDKs' HTTP stacks do, must then read that 413, not
// a connection reset: the body is read and dropped, up to a bound, before
// the answer.
func TestBatchOverLimitAnswered413(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "bigbatch")
	body := "--batch_big\r\n" + strings.Repeat("x", 6<<20) + "\r\n--batch_big--\r\n"
	req, conn := bigBatch(t, e, body)
	if err := req.Write(conn); err != nil {
		t.Fatalf("sending the body: %v", err)
	}
	want413(t, conn, req)

	// A client that asks for 100 Continue sends no body before the answer.
	req, conn = bigBatch(t, e, body)
	req.Header.Set("Expect", "100-continue")
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", req.URL.RequestURI(), req.URL.Host, len(body))
	if err := req.Header.Write(conn); err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(conn, "\r\n")
	want413(t, conn, req)
}

// bigBatch is a signed $batch request of body and a connection to send it on.
func bigBatch(t *testing.T, e *env, body string) (*http.Request, net.Conn) {
	t.Helper()
	req, err := http.NewRequest("POST", strings.TrimSuffix(e.in.TableURL, "/")+"/$batch", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "multipart/mixed; boundary=batch_big")
	req.Header.Set("x-ms-version", "2019-02-02")
	signLite(t, req)
	u, _ := url.Parse(e.in.TableURL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return req, conn
}

func want413(t *testing.T, conn net.Conn, req *http.Request) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("x-ms-error-code") != "RequestBodyTooLarge" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
}
