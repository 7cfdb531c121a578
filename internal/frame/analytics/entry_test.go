package analytics

import (
	"strings"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	start := time.Date(2026, 11, 25, 1, 2, 3, 456789100, time.UTC)
	e := Entry{Start: start, Operation: "GetBlob", Status: "Success", HTTPStatus: 200,
		EndToEnd: 28 * time.Millisecond, Server: 27 * time.Millisecond, AuthType: AuthKey,
		Requester: "acct", Owner: "acct", Service: "blob",
		URL: `https://acct.blob.core.windows.net/c/b?a=1&b="2"`, ObjectKey: "/acct/c/b",
		RequestID: "a84aa705-8a85-48c5-b064-b43bd22979c3", RemoteAddr: "203.0.113.34:4362", Version: "2025-01-05",
		RequestHeader: 252, RequestBody: 0, ResponseHeader: 265, ResponseBody: 100, ContentLength: -1,
		ETag: `"0x8D101F7E4B662C4"`, LastModified: time.Date(2014, 6, 19, 22, 58, 10, 0, time.UTC),
		UserAgent: "agent (os; arch)\nnext", ClientRequestID: "id"}
	want := strings.Join([]string{"1.0", "2026-11-25T01:02:03.4567891Z", "GetBlob", "Success", "200", "28", "27",
		"authenticated", "acct", "acct", "blob",
		`"https://acct.blob.core.windows.net/c/b?a=1&amp;b=&quot;2&quot;"`, `"/acct/c/b"`,
		"a84aa705-8a85-48c5-b064-b43bd22979c3", "0", "203.0.113.34:4362", "2025-01-05",
		"252", "0", "265", "100", "", "", "", `"&quot;0x8D101F7E4B662C4&quot;"`,
		"Thursday, 19-Jun-14 22:58:10 GMT", "", `"agent (os; arch)&#10;next"`, "", `"id"`}, ";")
	if got := e.Line(); got != want {
		t.Fatalf("line\n got %s\nwant %s", got, want)
	}
	if strings.Contains(e.Line(), "\n") {
		t.Fatal("a line break inside an entry")
	}
}

func TestOutcome(t *testing.T) {
	for _, tt := range []struct {
		auth   string
		status int
		want   string
	}{
		{AuthKey, 200, "Success"},
		{AuthKey, 304, "Success"},
		{AuthSAS, 201, "SASSuccess"},
		{AuthAnonymous, 200, "AnonymousSuccess"},
		{AuthKey, 403, "AuthorizationError"},
		{AuthSAS, 403, "SASAuthorizationError"},
		{AuthKey, 404, "ClientOtherError"},
		{AuthSAS, 409, "SASClientOtherError"},
		{AuthKey, 408, "ClientTimeoutError"},
		{AuthKey, 500, "ServerOtherError"},
		{AuthKey, 503, "ThrottlingError"},
		{AuthAnonymous, 500, "AnonymousServerOtherError"},
	} {
		if got := Outcome(tt.auth, tt.status); got != tt.want {
			t.Errorf("Outcome(%s, %d) = %s, want %s", tt.auth, tt.status, got, tt.want)
		}
	}
}

func TestCategoryOf(t *testing.T) {
	for method, want := range map[string]Category{"GET": Read, "HEAD": Read, "PUT": Write, "POST": Write,
		"MERGE": Write, "PATCH": Write, "DELETE": Delete} {
		if got := CategoryOf(method); got != want {
			t.Errorf("CategoryOf(%s) = %d, want %d", method, got, want)
		}
	}
	if got := (Read | Delete).logTypes(); got != "read,delete" {
		t.Errorf("logTypes %q", got)
	}
}

func TestFileNames(t *testing.T) {
	hour := time.Date(2026, 1, 2, 13, 0, 0, 0, time.UTC)
	name := fileName("queue", hour, 7)
	if name != "queue/2026/01/02/1300/000007.log" {
		t.Fatalf("fileName %q", name)
	}
	for _, tt := range []struct {
		service, name string
		ok            bool
	}{
		{"queue", name, true},
		{"blob", name, false},
		{"queue", "queue/2026/01/0", false},
		{"queue", "queue/notes.txt-and-more", false},
	} {
		got, ok := hourOf(tt.service, tt.name)
		if ok != tt.ok || (ok && !got.Equal(hour)) {
			t.Errorf("hourOf(%s, %s) = %v %v", tt.service, tt.name, got, ok)
		}
	}
}
