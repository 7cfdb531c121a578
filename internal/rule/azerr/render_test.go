package azerr

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
)

func TestWriteXML(t *testing.T) {
	w := httptest.NewRecorder()
	w.Header().Set(RequestIDHeader, "req-1")
	r := httptest.NewRequest("GET", "/a/b", nil)
	Renderer{Format: XML}.Write(w, r, OutOfRangeQuery("numofmessages", "40", 1, 32))
	if w.Code != 400 || w.Header().Get(ErrorCodeHeader) != OutOfRangeQueryParameterValue {
		t.Fatalf("status %d code %q", w.Code, w.Header().Get(ErrorCodeHeader))
	}
	body := w.Body.String()
	for _, want := range []string{"<Code>OutOfRangeQueryParameterValue</Code>", "\nRequestId:req-1\nTime:",
		"<QueryParameterName>numofmessages</QueryParameterName>", "<MinimumAllowed>1</MinimumAllowed>", "<MaximumAllowed>32</MaximumAllowed>"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q: %s", want, body)
		}
	}
}

func TestWriteNoBody(t *testing.T) {
	for _, c := range []struct {
		method string
		err    *Error
	}{
		{"HEAD", New(BlobNotFound)},
		{"GET", New(ConditionNotMet).WithStatus(http.StatusNotModified)},
	} {
		w := httptest.NewRecorder()
		Renderer{Format: XML}.Write(w, httptest.NewRequest(c.method, "/", nil), c.err)
		if w.Body.Len() != 0 || w.Code != c.err.Status || w.Header().Get(ErrorCodeHeader) != c.err.Code {
			t.Errorf("%s %s: status %d body %q", c.method, c.err.Code, w.Code, w.Body.String())
		}
	}
}

func TestWriteJSONAndInternal(t *testing.T) {
	w := httptest.NewRecorder()
	Renderer{Format: JSON}.Write(w, httptest.NewRequest("GET", "/", nil), New(UpdateConditionNotSatisfied))
	var doc map[string]map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc["odata.error"]["code"] != UpdateConditionNotSatisfied {
		t.Fatalf("json body %s: %v", w.Body.String(), err)
	}
	w = httptest.NewRecorder()
	Renderer{Format: XML}.Write(w, httptest.NewRequest("GET", "/", nil), errSecret{})
	if w.Code != 500 || strings.Contains(w.Body.String(), "secret") {
		t.Errorf("internal error leaked or wrong status: %d %s", w.Code, w.Body.String())
	}
}

type errSecret struct{}

func (errSecret) Error() string { return "secret detail" }

func TestCatalogueComplete(t *testing.T) {
	for code, e := range catalogue {
		if e.status < 300 || e.status > 599 || e.message == "" {
			t.Errorf("%s: bad entry %+v", code, e)
		}
	}
	if got := FullMessage(New(BlobNotFound), "id", time.Date(2020, 5, 18, 5, 51, 27, 335061400, time.UTC)); !strings.HasSuffix(got, "Time:2020-05-18T05:51:27.3350614Z") {
		t.Errorf("time format: %s", got)
	}
}

func TestClientGone(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	timeout := &net.OpError{Op: "write", Net: "tcp", Err: os.ErrDeadlineExceeded}
	cases := []struct {
		name      string
		err       error
		cancelled bool
		want      bool
	}{
		{"body cut short", io.ErrUnexpectedEOF, true, true},
		{"broken pipe", &os.SyscallError{Syscall: "write", Err: syscall.EPIPE}, true, true},
		{"reset", fmt.Errorf("readfrom: %w", syscall.ECONNRESET), true, true},
		{"closed connection", fmt.Errorf("write: %w", net.ErrClosed), true, true},
		// A storage connection a restart broke, the client still waiting.
		{"database connection cut short", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), false, false},
		{"database connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), false, false},
		{"database connection closed", fmt.Errorf("conn: %w", net.ErrClosed), false, false},
		{"context error after cancel", fmt.Errorf("reading: %w", context.Canceled), true, true},
		{"write timeout after cancel", timeout, true, true},
		{"write timeout, client still there", timeout, false, false},
		{"context error of another context", context.Canceled, false, false},
		{"disk error after cancel", &os.PathError{Op: "read", Path: "extent", Err: syscall.EIO}, true, false},
		{"disk error", &os.PathError{Op: "read", Path: "extent", Err: syscall.EIO}, false, false},
		{"Azure error", New(BlobNotFound), false, false},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		if tc.cancelled {
			r = r.WithContext(cancelled)
		}
		if got := ClientGone(r, tc.err); got != tc.want {
			t.Errorf("%s: ClientGone = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestClientGoneIsNotAnInternalError(t *testing.T) {
	for _, err := range []error{io.ErrUnexpectedEOF, fmt.Errorf("write: %w", syscall.EPIPE), fmt.Errorf("read: %w", syscall.ECONNRESET)} {
		w := httptest.NewRecorder()
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		Renderer{Format: XML}.Write(w, httptest.NewRequest("PUT", "/a/b", nil).WithContext(gone), err)
		if w.Body.Len() != 0 || w.Header().Get(ErrorCodeHeader) != "" {
			t.Errorf("%v: rendered %d %q", err, w.Code, w.Body.String())
		}
	}
}

// records is a slog handler that keeps what it is given.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.list = append(h.list, r.Clone())
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

func attr(r slog.Record, key string) string {
	var v string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.String()
		}
		return true
	})
	return v
}

func TestInternalErrorLoggedWithInjectedLoggerAndClock(t *testing.T) {
	at := time.Date(2031, 3, 4, 5, 6, 7, 800, time.UTC)
	logged := &records{}
	rd := Renderer{Format: XML, Logger: slog.New(logged), Clock: clock.NewFake(at)}
	w := httptest.NewRecorder()
	w.Header().Set(RequestIDHeader, "req-9")
	rd.Write(w, httptest.NewRequest("PUT", "/a/b", nil), errSecret{})
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "Time:2031-03-04T05:06:07.0000008Z") {
		t.Fatalf("answer %d %s", w.Code, w.Body.String())
	}
	if len(logged.list) != 1 {
		t.Fatalf("%d records logged, want 1", len(logged.list))
	}
	rec := logged.list[0]
	if rec.Level != slog.LevelError || !rec.Time.Equal(at) || attr(rec, "request_id") != "req-9" || attr(rec, "error") != "secret detail" {
		t.Fatalf("logged %v %v %q: request_id %q error %q", rec.Level, rec.Time, rec.Message, attr(rec, "request_id"), attr(rec, "error"))
	}
}

func TestPanicLoggedAndAnswered(t *testing.T) {
	at := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, started := range []bool{false, true} {
		logged := &records{}
		rd := Renderer{Format: JSON, Logger: slog.New(logged), Clock: clock.NewFake(at)}
		w := httptest.NewRecorder()
		rd.Panic(w, httptest.NewRequest("GET", "/t", nil), "boom", started)
		if len(logged.list) != 1 {
			t.Fatalf("started=%v: %d records logged, want 1", started, len(logged.list))
		}
		rec := logged.list[0]
		if rec.Level != slog.LevelError || !rec.Time.Equal(at) || attr(rec, "panic") != "boom" ||
			!strings.Contains(attr(rec, "stack"), "TestPanicLoggedAndAnswered") {
			t.Fatalf("started=%v: logged %v %v panic %q stack %q", started, rec.Level, rec.Time, attr(rec, "panic"), attr(rec, "stack"))
		}
		switch {
		case !started && (w.Code != http.StatusInternalServerError || w.Header().Get(ErrorCodeHeader) != InternalError ||
			strings.Contains(w.Body.String(), "boom")):
			t.Fatalf("not started: answered %d %s", w.Code, w.Body.String())
		case started && w.Body.Len() != 0:
			t.Fatalf("started: wrote %q after the handler's own answer", w.Body.String())
		}
	}
}

// TestBodyXMLBytes pins the exact bytes of an XML error body: lower-case
// declaration, named entities, the message's line breaks literal.
func TestBodyXMLBytes(t *testing.T) {
	e := Newf(InvalidHeaderValue, `a "b" & <c>'s`).With("HeaderName", "x-ms-<x>")
	got := string(Body(e, "req-1", time.Date(2020, 5, 18, 5, 51, 27, 335061400, time.UTC), XML))
	want := `<?xml version="1.0" encoding="utf-8"?><Error><Code>InvalidHeaderValue</Code>` +
		"<Message>a &quot;b&quot; &amp; &lt;c&gt;&apos;s\nRequestId:req-1\nTime:2020-05-18T05:51:27.3350614Z</Message>" +
		"<HeaderName>x-ms-&lt;x&gt;</HeaderName></Error>"
	if got != want {
		t.Fatalf("body:\n got %q\nwant %q", got, want)
	}
}

// TestODataNegotiatesByAccept pins Table's error format: JSON unless the
// request accepts XML only, then OData's <m:error> document, byte for byte
// as the recorded TestRetentionTooLong answer of Set Table Service
// Properties (Accept: application/xml) reads.
func TestODataNegotiatesByAccept(t *testing.T) {
	at := time.Date(2024, 2, 26, 20, 27, 34, 861997600, time.UTC)
	wantXML := `<?xml version="1.0" encoding="utf-8"?><m:error xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">` +
		`<m:code>InvalidXmlDocument</m:code><m:message xml:lang="en-US">XML specified is not syntactically valid.` +
		"\nRequestId:c1fbfacf-e002-0055-22f2-68f169000000\nTime:2024-02-26T20:27:34.8619976Z</m:message></m:error>"
	for _, c := range []struct {
		accept, contentType string
		xml                 bool
	}{
		{"application/xml", "application/xml", true},
		{"application/atom+xml,application/xml", "application/xml", true},
		{"application/json;odata=minimalmetadata", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8", false},
		{"application/json, application/xml", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8", false},
		{"", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8", false},
	} {
		w := httptest.NewRecorder()
		w.Header().Set(RequestIDHeader, "c1fbfacf-e002-0055-22f2-68f169000000")
		r := httptest.NewRequest("PUT", "/?restype=service&comp=properties", nil)
		if c.accept != "" {
			r.Header.Set("Accept", c.accept)
		}
		Renderer{Format: OData, Clock: clock.NewFake(at)}.Write(w, r, New(InvalidXmlDocument))
		if w.Code != 400 || w.Header().Get(ErrorCodeHeader) != InvalidXmlDocument || w.Header().Get("Content-Type") != c.contentType {
			t.Errorf("Accept %q: status %d code %q type %q", c.accept, w.Code, w.Header().Get(ErrorCodeHeader), w.Header().Get("Content-Type"))
		}
		if got := w.Body.String(); c.xml && got != wantXML {
			t.Errorf("Accept %q: body\n got %q\nwant %q", c.accept, got, wantXML)
		} else if !c.xml && !strings.HasPrefix(got, `{"odata.error":{"code":"InvalidXmlDocument"`) {
			t.Errorf("Accept %q: body %s", c.accept, got)
		}
	}
}
