package blob_test

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestFindBlobsByTagsErrorMessages pins the answers to malformed where=
// expressions: 400 InvalidQueryParameterValue whose message is the
// parser's, "Error parsing query at or near character position N: ..."
// or "Error parsing query: ..." for a rule of the whole query. The cases
// and texts are those of Azurite's filter-blob tests, which run the
// JavaScript storage-blob client against Azure (tests/blob/apis/
// service.test.ts and container.test.ts: invalid key chars, long key,
// invalid value chars, long value, invalid query string, more than limited
// conditions), and "Cannot have container in both uri and query" is the
// service's answer quoted in Azure/azure-sdk-for-net#27610.
func TestFindBlobsByTagsErrorMessages(t *testing.T) {
	e := start(t)
	e.container("finderr")
	eleven := ""
	for i := range 11 {
		eleven += "k" + string(rune('a'+i)) + "='v' and "
	}
	at := "Error parsing query at or near character position "
	cases := []struct {
		path, where, prefix, contains string
	}{
		{"", `key1='valffffff' and @container11='1111'`, at, "unsupported parameter '@container11'"},
		{"", `'key 1'='valffffff'`, at, ""},
		{"", `'key-1'='valffffff'`, at, ""},
		{"", "key" + strings.Repeat("1234567890", 13) + "='value'", at, "tag must be between 1 and 128 characters in length"},
		{"", `key1='valffffff @'`, at, "'@' not permitted in tag name or value"},
		{"", "key_1='value" + strings.Repeat("1234567890", 26) + "'", at, "tag value must be between 0 and 256 characters in length"},
		{"finderr", `astring`, at, ""},
		{"finderr", `key1<>'ab'`, at, ""},
		{"finderr", `key1='ab' or key2='cd'`, at, ""},
		{"", strings.TrimSuffix(eleven, " and "), "Error parsing query: there can be at most 10 unique tags in a query", ""},
		{"finderr", `@container='finderr' and a='b'`, "Error parsing query: Cannot have container in both uri and query", ""},
	}
	for _, c := range cases {
		query := "?comp=blobs&where=" + url.QueryEscape(c.where)
		if c.path != "" {
			query = "?restype=container&comp=blobs&where=" + url.QueryEscape(c.where)
		}
		resp := e.raw(http.MethodGet, c.path+query, nil, nil)
		msg := errorMessage(t, resp)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "InvalidQueryParameterValue" {
			t.Errorf("%s: got %d %s", c.where, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
		if !strings.HasPrefix(msg, c.prefix) || !strings.Contains(msg, c.contains) {
			t.Errorf("%s: message %q, want it to start %q and contain %q", c.where, msg, c.prefix, c.contains)
		}
	}
}

// errorMessage is the Message of an XML error body.
func errorMessage(t *testing.T, resp *http.Response) string {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Message string `xml:"Message"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return doc.Message
}
