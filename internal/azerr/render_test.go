package azerr

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteXML(t *testing.T) {
	w := httptest.NewRecorder()
	w.Header().Set(RequestIDHeader, "req-1")
	r := httptest.NewRequest("GET", "/a/b", nil)
	Write(w, r, OutOfRangeQuery("numofmessages", "40", 1, 32), XML)
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
		Write(w, httptest.NewRequest(c.method, "/", nil), c.err, XML)
		if w.Body.Len() != 0 || w.Code != c.err.Status || w.Header().Get(ErrorCodeHeader) != c.err.Code {
			t.Errorf("%s %s: status %d body %q", c.method, c.err.Code, w.Code, w.Body.String())
		}
	}
}

func TestWriteJSONAndInternal(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, httptest.NewRequest("GET", "/", nil), New(UpdateConditionNotSatisfied), JSON)
	var doc map[string]map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc["odata.error"]["code"] != UpdateConditionNotSatisfied {
		t.Fatalf("json body %s: %v", w.Body.String(), err)
	}
	w = httptest.NewRecorder()
	Write(w, httptest.NewRequest("GET", "/", nil), errSecret{}, XML)
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

func TestClientGoneIsNotAnInternalError(t *testing.T) {
	for _, err := range []error{io.ErrUnexpectedEOF, fmt.Errorf("write: %w", syscall.EPIPE), fmt.Errorf("read: %w", syscall.ECONNRESET)} {
		w := httptest.NewRecorder()
		Write(w, httptest.NewRequest("PUT", "/a/b", nil), err, XML)
		if w.Body.Len() != 0 || w.Header().Get(ErrorCodeHeader) != "" {
			t.Errorf("%v: rendered %d %q", err, w.Code, w.Body.String())
		}
	}
}
