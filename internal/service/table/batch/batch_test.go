package batch

import (
	"bufio"
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// sdkBody is a changeset as aztables' SubmitTransaction writes it.
const sdkBody = "--batch_b1\r\n" +
	"Content-Type: multipart/mixed; boundary=changeset_c1\r\n\r\n" +
	"--changeset_c1\r\n" +
	"Content-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n" +
	"POST http://127.0.0.1:10002/devstoreaccount1/t1?%24format=application%2Fjson%3Bodata%3Dminimalmetadata HTTP/1.1\r\n" +
	"Accept: application/json;odata=minimalmetadata\r\nContent-Length: 35\r\nContent-Type: application/json\r\n" +
	"Dataserviceversion: 3.0\r\nPrefer: return-no-content\r\nX-Ms-Version: 2019-02-02\r\n\r\n" +
	`{"PartitionKey":"p","RowKey":"r1"}` + "\n" +
	"\r\n--changeset_c1\r\n" +
	"Content-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n" +
	"DELETE http://127.0.0.1:10002/devstoreaccount1/t1(PartitionKey='p',RowKey='r2') HTTP/1.1\r\n" +
	"Accept: application/json;odata=minimalmetadata\r\nIf-Match: *\r\n\r\n" +
	"\r\n--changeset_c1--\r\n\r\n--batch_b1--\r\n"

func TestParseChangeset(t *testing.T) {
	b, err := Parse("multipart/mixed; boundary=batch_b1", []byte(sdkBody))
	if err != nil {
		t.Fatal(err)
	}
	if !b.Changeset || len(b.Requests) != 2 {
		t.Fatalf("changeset=%v, %d requests", b.Changeset, len(b.Requests))
	}
	ins, del := b.Requests[0], b.Requests[1]
	if ins.Method != "POST" || ins.URL.Path != "/devstoreaccount1/t1" || ins.Header.Get("Prefer") != "return-no-content" ||
		string(ins.Body) != `{"PartitionKey":"p","RowKey":"r1"}`+"\n" {
		t.Fatalf("insert part: %+v body %q", ins, ins.Body)
	}
	if ins.URL.Query().Get("$format") != "application/json;odata=minimalmetadata" {
		t.Fatalf("query lost: %v", ins.URL)
	}
	if del.Method != "DELETE" || del.URL.Path != "/devstoreaccount1/t1(PartitionKey='p',RowKey='r2')" ||
		del.Header.Get("If-Match") != "*" || len(del.Body) != 0 {
		t.Fatalf("delete part: %+v body %q", del, del.Body)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]struct{ ct, body string }{
		"not multipart":    {"application/json", "{}"},
		"no boundary":      {"multipart/mixed", sdkBody},
		"empty":            {"multipart/mixed; boundary=x", "--x--\r\n"},
		"bad request line": {"multipart/mixed; boundary=x", "--x\r\nContent-Type: multipart/mixed; boundary=y\r\n\r\n--y\r\nContent-Type: application/http\r\n\r\nNONSENSE\r\n\r\n--y--\r\n--x--\r\n"},
		"two changesets": {"multipart/mixed; boundary=x", "--x\r\nContent-Type: multipart/mixed; boundary=y\r\n\r\n--y--\r\n" +
			"--x\r\nContent-Type: multipart/mixed; boundary=z\r\n\r\n--z--\r\n--x--\r\n"},
		"write outside changeset": {"multipart/mixed; boundary=x", "--x\r\nContent-Type: application/http\r\n\r\nPOST http://h/a/t HTTP/1.1\r\n\r\n{}\r\n--x--\r\n"},
		"query in changeset": {"multipart/mixed; boundary=x", "--x\r\nContent-Type: multipart/mixed; boundary=y\r\n\r\n" +
			"--y\r\nContent-Type: application/http\r\n\r\nGET http://h/a/t() HTTP/1.1\r\n\r\n\r\n--y--\r\n--x--\r\n"},
		"truncated": {"multipart/mixed; boundary=batch_b1", sdkBody[:200]},
	}
	for name, c := range cases {
		if _, err := Parse(c.ct, []byte(c.body)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestParseLoneQuery(t *testing.T) {
	body := "--x\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"GET http://h/acct/t(PartitionKey='a',RowKey='b') HTTP/1.1\r\nAccept: application/json\r\n\r\n\r\n--x--\r\n"
	b, err := Parse("multipart/mixed; boundary=x", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if b.Changeset || len(b.Requests) != 1 || b.Requests[0].Method != "GET" {
		t.Fatalf("%+v", b)
	}
}

// TestRenderReadsBackLikeTheSDK parses a rendered response the way aztables
// does: boundary from the first line, then each inner part with
// http.ReadResponse.
func TestRenderReadsBackLikeTheSDK(t *testing.T) {
	h := http.Header{}
	h.Set("ETag", `W/"datetime'2020-01-01T00%3A00%3A00.0000000Z'"`)
	resps := []Response{
		{Status: 204, Header: h},
		{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"a":1}`)},
	}
	ct, body := Render("id1", true, resps)
	if ct != "multipart/mixed; boundary=batchresponse_id1" {
		t.Fatalf("content type %q", ct)
	}
	first := string(body[2:bytes.IndexByte(body, '\r')])
	mr := multipart.NewReader(bytes.NewReader(body), first)
	outer, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	inner, _ := io.ReadAll(outer)
	innerBoundary := string(inner[2:bytes.IndexByte(inner, '\r')])
	ir := multipart.NewReader(bytes.NewReader(inner), innerBoundary)
	var statuses []int
	for {
		p, err := ir.NextPart()
		if err != nil {
			break
		}
		raw, _ := io.ReadAll(p)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			t.Fatalf("part %q: %v", raw, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 201 && string(b) != `{"a":1}` {
			t.Fatalf("body %q", b)
		}
		if resp.StatusCode == 204 && resp.Header.Get("ETag") == "" {
			t.Fatal("ETag lost")
		}
		statuses = append(statuses, resp.StatusCode)
	}
	if len(statuses) != 2 || statuses[0] != 204 || statuses[1] != 201 {
		t.Fatalf("statuses %v", statuses)
	}
	if !strings.HasSuffix(string(body), "--batchresponse_id1--\r\n") {
		t.Fatalf("unterminated body %q", body)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("multipart/mixed; boundary=batch_b1", sdkBody)
	f.Add("multipart/mixed; boundary=x", "--x\r\nContent-Type: application/http\r\n\r\nGET http://h/a/t() HTTP/1.1\r\n\r\n\r\n--x--\r\n")
	f.Add("multipart/mixed; boundary=x", "--x\r\nContent-Type: multipart/mixed; boundary=y\r\n\r\n--y--\r\n--x--\r\n")
	f.Fuzz(func(t *testing.T, ct, body string) {
		b, err := Parse(ct, []byte(body))
		if err != nil {
			return
		}
		if len(b.Requests) == 0 && !b.Changeset {
			t.Fatal("a lone query batch without its query")
		}
		for _, r := range b.Requests {
			if r.URL == nil || r.Method == "" || r.Header == nil {
				t.Fatalf("incomplete request %+v", r)
			}
		}
	})
}

// TestBoundaryForms: an unquoted boundary holding '=' is read as sent (RFC
// 2046 section 5.1.1 allows it in a boundary), a quoted one too; a missing,
// empty or repeated boundary parameter is still no boundary.
func TestBoundaryForms(t *testing.T) {
	for ct, want := range map[string]string{
		"multipart/mixed; boundary=batch_x==":        "batch_x==",
		"multipart/mixed;boundary=a=b":               "a=b",
		`multipart/mixed; boundary="batch_x=="`:      "batch_x==",
		"multipart/mixed; Boundary=batch_1; x=y":     "batch_1",
		"multipart/mixed; charset=utf-8; boundary=z": "z",
	} {
		if got, err := multipartBoundary(ct); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", ct, got, err, want)
		}
	}
	for _, ct := range []string{"multipart/mixed", "multipart/mixed; boundary=", "multipart/mixed; boundary=a; boundary=b", "text/plain; boundary=a"} {
		if got, err := multipartBoundary(ct); err == nil {
			t.Errorf("%q: read boundary %q", ct, got)
		}
	}
}
