// Package analytics is Storage Analytics logging: when an account's Blob,
// Queue or Table service properties turn Logging on for reads, writes or
// deletes, each such request becomes one line of log format 1.0, and the
// lines are written, a batch at a time, as block blobs of the account's
// $logs container (<service>/YYYY/MM/DD/hh00/NNNNNN.log), where any blob
// client reads them. As on Azure, logging is best effort: lines buffered
// when the process stops abruptly are lost, and they never delay or fail
// the request they describe.
package analytics

import (
	"strconv"
	"strings"
	"time"
)

// Entry is one logged request: the fields of log format 1.0 ("Storage
// Analytics log format" in the Azure reference), in their order.
type Entry struct {
	Start            time.Time // when the request arrived
	Operation        string    // e.g. GetBlob
	Status           string    // Success, SASSuccess, ClientOtherError... (Outcome)
	HTTPStatus       int
	EndToEnd, Server time.Duration
	AuthType         string // authenticated, sas or anonymous
	Requester        string // the account of a Shared Key caller
	Owner            string
	Service          string // blob, queue or table
	URL              string
	ObjectKey        string // /account/container/blob
	RequestID        string
	RemoteAddr       string
	Version          string
	RequestHeader    int64 // sizes in bytes
	RequestBody      int64
	ResponseHeader   int64
	ResponseBody     int64
	ContentLength    int64 // -1: none
	RequestMD5       string
	ServerMD5        string
	ETag             string
	LastModified     time.Time
	Conditions       string // If-Match=...;If-None-Match=...
	UserAgent        string
	Referrer         string
	ClientRequestID  string
}

// Version is the log format Lazuli writes.
const Version = "1.0"

// startLayout is the request start time: ISO 8601 with seven fractional
// digits; lastModifiedLayout is the RFC 850 form the format uses for the
// object's last-modified time.
const (
	startLayout        = "2006-01-02T15:04:05.0000000Z"
	lastModifiedLayout = "Monday, 02-Jan-06 15:04:05 GMT"
)

// Line renders e as one log line, without its newline. Fields that may
// hold a quote, a semicolon or a newline are quoted, their quotes,
// ampersands and line breaks HTML-encoded, as the format requires (a
// semicolon inside quotes stays: log readers split outside quotes only);
// empty fields stay empty.
func (e Entry) Line() string {
	fields := []string{
		Version,
		e.Start.UTC().Format(startLayout),
		e.Operation,
		e.Status,
		strconv.Itoa(e.HTTPStatus),
		millis(e.EndToEnd),
		millis(e.Server),
		e.AuthType,
		e.Requester,
		e.Owner,
		e.Service,
		quoted(e.URL),
		quoted(e.ObjectKey),
		e.RequestID,
		"0", // operation count: each request is logged as one operation
		e.RemoteAddr,
		e.Version,
		size(e.RequestHeader),
		size(e.RequestBody),
		size(e.ResponseHeader),
		size(e.ResponseBody),
		size(e.ContentLength),
		quoted(e.RequestMD5),
		quoted(e.ServerMD5),
		quoted(e.ETag),
		lastModified(e.LastModified),
		quoted(e.Conditions),
		quoted(e.UserAgent),
		quoted(e.Referrer),
		quoted(e.ClientRequestID),
	}
	return strings.Join(fields, ";")
}

func millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

func size(n int64) string {
	if n < 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func lastModified(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(lastModifiedLayout)
}

// fieldEscaper HTML-encodes what would end a quoted field or a line.
var fieldEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", "\n", "&#10;", "\r", "&#13;")

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return `"` + fieldEscaper.Replace(s) + `"`
}

// Outcome is the request-status field: the outcome class of the status
// code, prefixed by how the caller authenticated (SAS and anonymous
// callers have their own statuses).
func Outcome(authType string, status int) string {
	var class string
	switch {
	case status < 400:
		class = "Success"
	case status == 403:
		class = "AuthorizationError"
	case status == 408:
		class = "ClientTimeoutError"
	case status == 503:
		class = "ThrottlingError"
	case status >= 500:
		class = "ServerOtherError"
	default:
		class = "ClientOtherError"
	}
	switch authType {
	case AuthSAS:
		return "SAS" + class
	case AuthAnonymous:
		return "Anonymous" + class
	}
	return class
}

// The authentication-type field's values.
const (
	AuthKey       = "authenticated"
	AuthSAS       = "sas"
	AuthAnonymous = "anonymous"
)
