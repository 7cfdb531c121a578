package azerr

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Format is the body encoding of an error response.
type Format int

// Formats: XML for Blob, Queue and File; JSON (OData) for Table.
const (
	XML Format = iota
	JSON
)

// RequestIDHeader is the response header that carries the request id; the
// middleware sets it before any handler runs and the renderer reads it back.
const RequestIDHeader = "x-ms-request-id"

// ErrorCodeHeader names the error code on every error response.
const ErrorCodeHeader = "x-ms-error-code"

// TimeLayout is the service's instant format in error messages.
const TimeLayout = "2006-01-02T15:04:05.0000000Z"

// Write renders err as the response. Non-Azure errors become 500
// InternalError and are logged with the request id; their text is never sent.
// HEAD requests and 304 responses carry no body.
func Write(w http.ResponseWriter, r *http.Request, err error, format Format) {
	if clientGone(r, err) {
		// The client went away mid-request (or the server is shutting
		// down): there is nobody to answer and nothing went wrong here.
		slog.DebugContext(r.Context(), "client went away", "request_id", w.Header().Get(RequestIDHeader), "error", err)
		return
	}
	e, ok := As(err)
	if !ok {
		slog.ErrorContext(r.Context(), "internal error", "request_id", w.Header().Get(RequestIDHeader),
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
	body := Body(e, h.Get(RequestIDHeader), time.Now().UTC(), format)
	if format == JSON {
		h.Set("Content-Type", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8")
	} else {
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
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="utf-8"?><Error><Code>`)
	xmlEscape(&sb, e.Code)
	sb.WriteString("</Code><Message>")
	xmlEscape(&sb, msg)
	sb.WriteString("</Message>")
	for _, d := range e.Details {
		sb.WriteString("<" + d.Name + ">")
		xmlEscape(&sb, d.Value)
		sb.WriteString("</" + d.Name + ">")
	}
	sb.WriteString("</Error>")
	return []byte(sb.String())
}

// xmlEscape escapes markup but keeps newlines literal, as the service's
// messages carry "\nRequestId:" lines.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func xmlEscape(sb *strings.Builder, s string) {
	_, _ = xmlEscaper.WriteString(sb, s)
}

// clientGone reports whether err only says that the client disconnected:
// its context ended, its request body was cut short, or the connection
// broke while the response was being written.
func clientGone(r *http.Request, err error) bool {
	if r.Context().Err() != nil && errors.Is(err, r.Context().Err()) {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}
