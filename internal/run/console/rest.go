package console

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// restVersion is the x-ms-version the console's own requests carry.
const restVersion = "2025-01-05"

// restError is a service's error answer, passed on to the browser.
type restError struct {
	Status  int
	Code    string
	Message string
}

func (e *restError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%d %s", e.Status, e.Code)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// badRequest is the console's own answer to a parameter it cannot use.
func badRequest(msg string) error {
	return &restError{Status: http.StatusBadRequest, Code: "InvalidQueryParameterValue", Message: msg}
}

// errorMessage is the first line of the Message of a service's error body:
// XML <Error><Message> for blob, queue and file, JSON odata.error for
// table (Azure REST, "Status and error codes").
func errorMessage(body []byte) string {
	var x struct {
		Message string `xml:"Message"`
	}
	var j struct {
		Error struct {
			Message struct {
				Value string `json:"value"`
			} `json:"message"`
		} `json:"odata.error"`
	}
	msg := ""
	if xml.Unmarshal(body, &x) == nil {
		msg = x.Message
	} else if json.Unmarshal(body, &j) == nil {
		msg = j.Error.Message.Value
	}
	first, _, _ := strings.Cut(msg, "\n")
	return first
}

// request builds a Shared Key signed request for svc in account, as an SDK
// would send it, with body (nil for none) of length bytes; the console
// reads and writes the services through their own REST API, so every rule
// they apply applies here too.
func (c *Console) request(ctx context.Context, svc, account, method, path string, query url.Values, header http.Header,
	body io.Reader, length int64) (*http.Request, error) {
	acct, ok := c.opts.Accounts.Lookup(account)
	if !ok {
		return nil, &restError{Status: http.StatusNotFound, Code: "no account " + account}
	}
	u := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: "/" + account + path, RawQuery: query.Encode()}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, &restError{Status: http.StatusBadRequest, Code: err.Error()}
	}
	req.ContentLength = length
	req.RemoteAddr = "127.0.0.1:0"
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("X-Ms-Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("X-Ms-Version", restVersion)
	if svc == "table" {
		setDefault(req.Header, "Accept", "application/json;odata=minimalmetadata")
		setDefault(req.Header, "DataServiceVersion", "3.0")
	}
	auth.SignSharedKey(req, auth.Service(svc), account, acct.Keys[0])
	return req, nil
}

// setDefault sets a header the caller did not set.
func setDefault(h http.Header, name, value string) {
	if h.Get(name) == "" {
		h.Set(name, value)
	}
}

// call runs a signed request through the service's handler and returns
// the recorded answer; a status of 300 or more is a *restError.
func (c *Console) call(ctx context.Context, svc, account, method, path string, query url.Values, header http.Header) (*httptest.ResponseRecorder, error) {
	h, ok := c.opts.Services[svc]
	if !ok {
		return nil, &restError{Status: http.StatusNotFound, Code: "the " + svc + " service is not running"}
	}
	req, err := c.request(ctx, svc, account, method, path, query, header, nil, 0)
	if err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		return nil, &restError{Status: rec.Code, Code: rec.Header().Get("X-Ms-Error-Code"), Message: errorMessage(rec.Body.Bytes())}
	}
	return rec, nil
}

// listXML pages through a List operation, decoding each page into a fresh
// T and handing it to add, until the NextMarker is empty.
func listXML[T any](ctx context.Context, c *Console, svc, account, path string, query url.Values, add func(*T) string) error {
	for pages := 0; pages < 100; pages++ {
		rec, err := c.call(ctx, svc, account, http.MethodGet, path, query, nil)
		if err != nil {
			return err
		}
		page := new(T)
		if err := xml.Unmarshal(rec.Body.Bytes(), page); err != nil {
			return err
		}
		next := add(page)
		if next == "" {
			return nil
		}
		query.Set("marker", next)
	}
	return nil
}

// namesPage is a List Containers, List Queues or List Shares page.
type namesPage struct {
	Containers []string `xml:"Containers>Container>Name"`
	Queues     []string `xml:"Queues>Queue>Name"`
	Shares     []string `xml:"Shares>Share>Name"`
	NextMarker string   `xml:"NextMarker"`
}

// listNames lists the containers, queues or shares of account.
func (c *Console) listNames(ctx context.Context, svc, account string) ([]string, error) {
	var names []string
	err := listXML(ctx, c, svc, account, "/", url.Values{"comp": {"list"}}, func(p *namesPage) string {
		names = append(names, p.Containers...)
		names = append(names, p.Queues...)
		names = append(names, p.Shares...)
		return p.NextMarker
	})
	return names, err
}

// listTables lists the tables of account through Query Tables.
func (c *Console) listTables(ctx context.Context, account string) ([]string, error) {
	var names []string
	query := url.Values{}
	for pages := 0; pages < 100; pages++ {
		rec, err := c.call(ctx, "table", account, http.MethodGet, "/Tables", query, nil)
		if err != nil {
			return nil, err
		}
		var page struct {
			Value []struct{ TableName string } `json:"value"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			return nil, err
		}
		for _, t := range page.Value {
			names = append(names, t.TableName)
		}
		next := rec.Header().Get("X-Ms-Continuation-Nexttablename")
		if next == "" {
			break
		}
		query.Set("NextTableName", next)
	}
	return names, nil
}
