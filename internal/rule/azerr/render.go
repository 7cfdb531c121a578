package azerr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
)

// Format is the body encoding of an error response.
type Format int

// Formats: XML for Blob, Queue and File; OData for Table, which answers
// in JSON or, to a request that accepts XML only, in OData's XML error
// form (ODataXML). Table's XML operations (service properties and stats,
// table ACLs) are sent with Accept: application/xml, and Azure answers
// their errors as <m:error> documents (the Go SDK's recorded
// TestRetentionTooLong). Either way the code is also in x-ms-error-code,
// where the SDKs read it. DataLake is the dfs endpoint's JSON form,
// {"error":{"code":...,"message":...}} (DataLakeStorage.json's
// StorageError definition).
const (
	XML Format = iota
	JSON
	ODataXML
	OData
	DataLake
)

// odataMetadataNS is the namespace of OData's XML error element.
const odataMetadataNS = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"

// negotiate is the format of one response: OData picks JSON or ODataXML
// from the request's Accept header.
func (f Format) negotiate(r *http.Request) Format {
	if f != OData {
		return f
	}
	accept := strings.ToLower(r.Header.Get("Accept"))
	if strings.Contains(accept, "xml") && !strings.Contains(accept, "json") {
		return ODataXML
	}
	return JSON
}

// RequestIDHeader is the response header that carries the request id; the
// middleware sets it before any handler runs and the renderer reads it back.
const RequestIDHeader = "x-ms-request-id"

// ErrorCodeHeader names the error code on every error response.
const ErrorCodeHeader = "x-ms-error-code"

// TimeLayout is the service's instant format in error messages.
const TimeLayout = "2006-01-02T15:04:05.0000000Z"

// Renderer writes error responses. It is built once per service with the
// host's logger and clock, so that internal faults are logged where the
// operator looks and the Time line of a message is the server's time (the
// clock tests drive), like the Date header.
type Renderer struct {
	Format Format
	// Logger receives internal faults (500) and, at debug level, errors not
	// answered because the client went away; nil is slog.Default().
	Logger *slog.Logger
	// Clock stamps the Time line of the message; nil is the system clock.
	Clock clock.Clock
}

func (rd Renderer) logger() *slog.Logger {
	if rd.Logger == nil {
		return slog.Default()
	}
	return rd.Logger
}

func (rd Renderer) now() time.Time {
	if rd.Clock == nil {
		return time.Now().UTC()
	}
	return rd.Clock.Now().UTC()
}

// log writes one record through the logger, stamped with the clock's time
// rather than the wall clock, so that a fault's log line and its response
// tell the same time.
func (rd Renderer) log(ctx context.Context, level slog.Level, msg string, args ...any) {
	c := rd.Clock
	if c == nil {
		c = clock.Real{}
	}
	clock.Log(ctx, rd.logger(), c, level, msg, args...)
}

// Panic answers a request whose handler panicked with p: the panic and its
// stack are logged as an internal fault, and, when the handler had not
// started its response (started false), the client gets 500 InternalError.
func (rd Renderer) Panic(w http.ResponseWriter, r *http.Request, p any, started bool) {
	rd.log(r.Context(), slog.LevelError, "panic in handler", "request_id", w.Header().Get(RequestIDHeader),
		"method", r.Method, "url", r.URL.String(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	if !started {
		rd.Write(w, r, New(InternalError))
	}
}

// Write renders err as the response. Non-Azure errors become 500
// InternalError and are logged with the request id; their text is never sent.
// HEAD requests and 304 responses carry no body. Nothing is written when the
// client went away (ClientGone).
func (rd Renderer) Write(w http.ResponseWriter, r *http.Request, err error) {
	if ClientGone(r, err) {
		// There is nobody to answer and nothing went wrong here.
		rd.log(r.Context(), slog.LevelDebug, "client went away", "request_id", w.Header().Get(RequestIDHeader), "error", err)
		return
	}
	e, ok := As(err)
	if !ok {
		rd.log(r.Context(), slog.LevelError, "internal error", "request_id", w.Header().Get(RequestIDHeader),
			"method", r.Method, "path", r.URL.Path, "error", err)
		e = New(InternalError)
	}
	h := w.Header()
	for k, vs := range e.Header {
		h[k] = vs
	}
	h.Set(ErrorCodeHeader, e.Code)
	if r.Method == http.MethodHead || e.Status == http.StatusNotModified {
		h.Del("Content-Type")
		w.WriteHeader(e.Status)
		return
	}
	format := rd.Format.negotiate(r)
	body := Body(e, h.Get(RequestIDHeader), rd.now(), format)
	switch format {
	case JSON:
		h.Set("Content-Type", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8")
	case DataLake:
		h.Set("Content-Type", "application/json;charset=utf-8")
	default:
		h.Set("Content-Type", "application/xml")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

// FullMessage is the message text as the service sends it: the human text,
// then the request id and time on their own lines.
func FullMessage(e *Error, requestID string, now time.Time) string {
	return e.Message + "\nRequestId:" + requestID + "\nTime:" + now.Format(TimeLayout)
}

// Body encodes the error body in the given format.
func Body(e *Error, requestID string, now time.Time, format Format) []byte {
	msg := FullMessage(e, requestID, now)
	if format == DataLake {
		var doc struct {
			Err struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		doc.Err.Code, doc.Err.Message = e.Code, msg
		b, _ := json.Marshal(doc)
		return b
	}
	if format == JSON {
		var doc struct {
			Err struct {
				Code    string `json:"code"`
				Message struct {
					Lang  string `json:"lang"`
					Value string `json:"value"`
				} `json:"message"`
			} `json:"odata.error"`
		}
		doc.Err.Code = e.Code
		doc.Err.Message.Lang = "en-US"
		doc.Err.Message.Value = msg
		b, _ := json.Marshal(doc)
		return b
	}
	// Messages keep their "\nRequestId:" lines literal.
	x := xmlw.New(xmlw.DeclLower, xmlw.KeepNewlines)
	if format == ODataXML {
		x.Open("m:error", "xmlns:m", odataMetadataNS)
		x.Elem("m:code", e.Code)
		x.Open("m:message", "xml:lang", "en-US")
		x.Text(msg)
		x.Close("m:message")
		x.Close("m:error")
		return x.Bytes()
	}
	x.Open("Error")
	x.Elem("Code", e.Code)
	x.Elem("Message", msg)
	for _, d := range e.Details {
		x.Elem(d.Name, d.Value)
	}
	x.Close("Error")
	return x.Bytes()
}

// ClientGone is the one rule for "the client went away": it reports
// whether err, met while serving r, only says that the client disconnected,
// so that there is nobody to answer and nothing to warn about. The request's
// context tells: net/http ends it as soon as a read from or a write to the
// client's connection fails. Once it has ended, err is the client's going
// when it is that context's error, a network operation's error (a write
// that timed out), a broken connection (EPIPE, ECONNRESET, a closed
// connection) or a body cut short (io.ErrUnexpectedEOF). While the context
// lives, the same errors come from elsewhere (a database connection that a
// restart broke) and are faults: answered 500, which the client retries,
// never left unanswered (net/http would then send an empty 200).
func ClientGone(r *http.Request, err error) bool {
	ctxErr := r.Context().Err()
	if ctxErr == nil {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var opErr *net.OpError
	return errors.Is(err, ctxErr) || errors.As(err, &opErr)
}
