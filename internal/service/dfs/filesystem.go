package dfs

import (
	"net/http"
	"net/url"
	"strconv"
)

// The filesystem operations are container operations (a filesystem is a
// container to both APIs): Create, Delete, Get and Set Properties are
// served by the Blob handlers on a rewritten request, whose answer's
// metadata headers are shown as x-ms-properties.

// createFilesystem is Filesystem - Create: Create Container.
func (s *Service) createFilesystem(w http.ResponseWriter, r *http.Request) error {
	return s.asContainerOp(w, r, http.MethodPut, "")
}

// deleteFilesystem is Filesystem - Delete: Delete Container.
func (s *Service) deleteFilesystem(w http.ResponseWriter, r *http.Request) error {
	return s.asContainerOp(w, r, http.MethodDelete, "")
}

// getFilesystemProperties is Filesystem - Get Properties: Get Container
// Properties.
func (s *Service) getFilesystemProperties(w http.ResponseWriter, r *http.Request) error {
	return s.asContainerOp(w, r, http.MethodHead, "")
}

// setFilesystemProperties is Filesystem - Set Properties: Set Container
// Metadata, which the properties replace.
func (s *Service) setFilesystemProperties(w http.ResponseWriter, r *http.Request) error {
	return s.asContainerOp(w, r, http.MethodPut, "metadata")
}

// asContainerOp serves r with the Blob handler of method on the container
// (?restype=container&comp=comp), its x-ms-properties as metadata, and
// answers with x-ms-properties and x-ms-namespace-enabled.
func (s *Service) asContainerOp(w http.ResponseWriter, r *http.Request, method, comp string) error {
	q := url.Values{"restype": {"container"}}
	if comp != "" {
		q.Set("comp", comp)
	}
	if t := r.URL.Query().Get("timeout"); t != "" {
		q.Set("timeout", t)
	}
	blobReq := r.Clone(r.Context())
	blobReq.Method = method
	blobReq.URL.RawQuery = q.Encode()
	if err := propertiesToMeta(blobReq.Header); err != nil {
		return err
	}
	hns := s.hnsAccount(r)
	return s.blobs.Handle(&answerHeaders{ResponseWriter: w, fix: func(h http.Header) {
		metaToProperties(h)
		h.Set("X-Ms-Namespace-Enabled", strconv.FormatBool(hns))
	}}, blobReq)
}

// answerHeaders lets fix edit the answer's headers before they are sent.
type answerHeaders struct {
	http.ResponseWriter
	fix  func(http.Header)
	sent bool
}

func (a *answerHeaders) WriteHeader(code int) {
	if !a.sent {
		a.sent = true
		if code < 300 {
			a.fix(a.Header())
		}
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerHeaders) Write(b []byte) (int, error) {
	if !a.sent {
		a.WriteHeader(http.StatusOK)
	}
	return a.ResponseWriter.Write(b)
}
