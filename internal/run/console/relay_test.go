package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// relayed sends one call through the console's relay as a tool would (no
// Origin, so no token is needed), with the given headers.
func relayed(t *testing.T, srv *lazulitest.Server, method, svc, path string, query url.Values, body io.Reader, header http.Header) *http.Response {
	t.Helper()
	u := srv.AdminURL + "/api/rest/" + method + "/" + svc + "/" + lazulitest.Account + "/" + url.PathEscape(path)
	if query != nil {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequest(http.MethodPost, u, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The relay passes the service's answer on, errors included, as an inert
// attachment; only the headers the page names with X-Rest- reach the
// service, and the console's signature cannot be replaced.
func TestRelayPassesTheServiceOn(t *testing.T) {
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}})
	container := url.Values{"restype": {"container"}}
	if resp := relayed(t, srv, "PUT", "blob", "box", container, nil, nil); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create container: %d %s", resp.StatusCode, readAll(t, resp))
	}
	resp := relayed(t, srv, "PUT", "blob", "box", container, nil, nil)
	if body := readAll(t, resp); resp.StatusCode != http.StatusConflict || resp.Header.Get("X-Ms-Error-Code") != "ContainerAlreadyExists" ||
		!strings.Contains(body, "<Message>The specified container already exists.") {
		t.Fatalf("create it again: %d %s %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"), body)
	}

	header := http.Header{"X-Rest-X-Ms-Blob-Type": {"BlockBlob"}, "X-Ms-Blob-Content-Type": {"text/html"},
		"X-Rest-X-Ms-Blob-Content-Disposition": {"inline"}, "X-Rest-Authorization": {"SharedKey devstoreaccount1:forged"}}
	if resp := relayed(t, srv, "PUT", "blob", "box/page.html", nil, strings.NewReader(htmlPage), header); resp.StatusCode != http.StatusCreated {
		t.Fatalf("put blob: %d %s", resp.StatusCode, readAll(t, resp))
	}
	props, err := srv.BlobClient(t).ServiceClient().NewContainerClient("box").NewBlobClient("page.html").GetProperties(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ContentType == "text/html" || *props.ContentDisposition != "inline" {
		t.Errorf("stored type %q and disposition %q: only X-Rest- headers go to the service", *props.ContentType, *props.ContentDisposition)
	}

	resp = relayed(t, srv, "GET", "blob", "box/page.html", nil, nil, nil)
	h := resp.Header
	if body := readAll(t, resp); body != htmlPage || h.Get("Content-Type") != "application/octet-stream" ||
		h.Get("Content-Security-Policy") != "sandbox; default-src 'none'" || !strings.HasPrefix(h.Get("Content-Disposition"), "attachment") {
		t.Errorf("relayed read: %q with %v", body, h)
	}
	// The service's content headers come under X-Service- names, the size
	// of a HEAD among them.
	resp = relayed(t, srv, "HEAD", "blob", "box/page.html", nil, nil, nil)
	h = resp.Header
	if resp.StatusCode != http.StatusOK || readAll(t, resp) != "" || h.Get("X-Service-Content-Length") != strconv.Itoa(len(htmlPage)) ||
		h.Get("X-Service-Content-Disposition") != "inline" || h.Get("X-Service-Content-Type") != "application/octet-stream" ||
		h.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(h.Get("Content-Disposition"), "attachment") {
		t.Errorf("relayed HEAD: %d, headers %v", resp.StatusCode, h)
	}
}

// Calls the relay cannot make are precise 4xx answers, never a 500.
func TestRelayRefusesWhatItCannotSend(t *testing.T) {
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}})
	for _, c := range []struct {
		name, method, svc, account string
		body                       io.Reader
		want                       int
	}{
		{"unknown method", "TRACE", "blob", lazulitest.Account, nil, http.StatusBadRequest},
		{"service not running", "GET", "queue", lazulitest.Account, nil, http.StatusNotFound},
		{"unknown account", "GET", "blob", "nobody", nil, http.StatusNotFound},
		{"body of unknown length", "PUT", "blob", lazulitest.Account, io.MultiReader(strings.NewReader("x")), http.StatusLengthRequired},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.AdminURL+"/api/rest/"+c.method+"/"+c.svc+"/"+c.account+"/box", c.body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var answer struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if resp.StatusCode != c.want || answer.Error == "" {
			t.Errorf("%s: %d %q, want %d with a reason", c.name, resp.StatusCode, answer.Error, c.want)
		}
	}
}

// The SAS API answers a precise 4xx for what it cannot sign.
func TestSASRefusesWhatItCannotSign(t *testing.T) {
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}})
	for _, c := range []struct {
		query url.Values
		want  int
	}{
		{url.Values{"account": {"nobody"}, "container": {"c"}, "sp": {"r"}, "se": {"2030-01-01T00:00:00Z"}}, http.StatusNotFound},
		{url.Values{"account": {lazulitest.Account}, "sp": {"r"}, "se": {"2030-01-01T00:00:00Z"}}, http.StatusBadRequest},
		{url.Values{"account": {lazulitest.Account}, "container": {"c"}, "sp": {"r"}, "se": {"soon"}}, http.StatusBadRequest},
		{url.Values{"account": {lazulitest.Account}, "container": {"c"}, "sp": {"r"}, "se": {"2030-01-01T00:00:00Z"}, "st": {"x"}}, http.StatusBadRequest},
		{url.Values{"account": {lazulitest.Account}, "container": {"c"}, "sp": {"q"}, "se": {"2030-01-01T00:00:00Z"}}, http.StatusBadRequest},
		{url.Values{"account": {lazulitest.Account}, "container": {"c"}, "se": {"2030-01-01T00:00:00Z"}}, http.StatusBadRequest},
	} {
		resp, err := http.Post(srv.AdminURL+"/api/sas?"+c.query.Encode(), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%v: %d %s, want %d", c.query, resp.StatusCode, body, c.want)
		}
	}
}
