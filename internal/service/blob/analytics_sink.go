package blob

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// logsContainer is the system container Storage Analytics writes its log
// files to (package analytics); List Containers shows it only with
// include=system.
const logsContainer = "$logs"

// The Blob service is the analytics.Sink of every service's logs. Each
// call is a request the service serves to itself, as the account's owner,
// through its own routes: the log files are ordinary block blobs, written
// and listed by the code that writes and lists every blob.

// EnsureLogs creates the account's $logs container if it is missing: every
// Azure account has one.
func (s *Service) EnsureLogs(ctx context.Context, account string) error {
	_, err := s.serveInternal(ctx, account, http.MethodPut, "/"+logsContainer, url.Values{"restype": {"container"}}, nil, nil)
	if azerr.Is(err, azerr.ContainerAlreadyExists) {
		return nil
	}
	return err
}

// WriteLog stores a log file, only if no file of that name exists.
func (s *Service) WriteLog(ctx context.Context, account, name string, body []byte, meta map[string]string) (exists bool, err error) {
	h := http.Header{"X-Ms-Blob-Type": {"BlockBlob"}, "Content-Type": {"text/plain"}, "If-None-Match": {"*"}}
	for k, v := range meta {
		h[metadata.Prefix+k] = []string{v} // the name keeps its case (metadata.Parse)
	}
	put := func() error {
		_, err := s.serveInternal(ctx, account, http.MethodPut, "/"+logsContainer+"/"+name, nil, h, body)
		return err
	}
	err = put()
	if azerr.Is(err, azerr.ContainerNotFound) {
		if err := s.EnsureLogs(ctx, account); err != nil {
			return false, err
		}
		err = put()
	}
	if azerr.Is(err, azerr.BlobAlreadyExists) {
		return true, nil
	}
	return false, err
}

// ListLogs returns the names of the log files under prefix.
func (s *Service) ListLogs(ctx context.Context, account, prefix string) ([]string, error) {
	var names []string
	marker := ""
	for {
		q := url.Values{"restype": {"container"}, "comp": {"list"}, "prefix": {prefix}, "marker": {marker}}
		out, err := s.serveInternal(ctx, account, http.MethodGet, "/"+logsContainer, q, nil, nil)
		if azerr.Is(err, azerr.ContainerNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		var page struct {
			Names      []string `xml:"Blobs>Blob>Name"`
			NextMarker string   `xml:"NextMarker"`
		}
		if err := xml.Unmarshal(out, &page); err != nil {
			return nil, err
		}
		names = append(names, page.Names...)
		if page.NextMarker == "" {
			return names, nil
		}
		marker = page.NextMarker
	}
}

// DeleteLog deletes a log file; one already gone is not an error.
func (s *Service) DeleteLog(ctx context.Context, account, name string) error {
	_, err := s.serveInternal(ctx, account, http.MethodDelete, "/"+logsContainer+"/"+name, nil, nil, nil)
	if azerr.Is(err, azerr.BlobNotFound) {
		return nil
	}
	return err
}

// serveInternal serves a request of the account's owner to path (after
// the account) and returns the response body, or the error the service
// answered.
func (s *Service) serveInternal(ctx context.Context, account, method, path string, q url.Values, h http.Header, body []byte) ([]byte, error) {
	u := &url.URL{Path: "/" + account + path, RawQuery: q.Encode()}
	r, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.ContentLength = int64(len(body))
	for k, v := range h {
		r.Header[k] = v
	}
	r.Header.Set("X-Ms-Version", server.NewestVersion)
	info := &request.Info{ID: guid.New(), Account: account, Path: path, Version: server.NewestVersion,
		Identity: &auth.Identity{Kind: auth.SharedKey, Account: account}, Start: s.now(), PathStyle: true}
	w := &internalResponse{header: http.Header{}}
	if err := s.Handle(w, r.WithContext(request.With(r.Context(), info))); err != nil {
		return nil, err
	}
	if w.status >= 300 {
		return nil, errors.New("blob: internal request answered " + http.StatusText(w.status))
	}
	return w.body.Bytes(), nil
}

// internalResponse keeps what a handler answers to serveInternal.
type internalResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *internalResponse) Header() http.Header { return w.header }

func (w *internalResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *internalResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// ReadFrom lets handlers that stream with io.Copy write here too.
func (w *internalResponse) ReadFrom(r io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.ReadFrom(r)
}
