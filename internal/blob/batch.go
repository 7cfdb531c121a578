package blob

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/guid"
	"github.com/lazuli-storage/lazuli/internal/request"
	"github.com/lazuli-storage/lazuli/internal/route"
)

// Blob Batch runs up to 256 Delete Blob or Set Blob Tier sub-requests of
// one multipart/mixed body. Each sub-request is a complete request: it is
// authenticated with its own credentials (Shared Key or SAS), routed
// through the service's route table to the same handler a lone request
// reaches (Delete Blob, or Set Blob Tier in tier.go), and answered in its
// own part of the response, in the order of the body. A failing
// sub-request fails alone; only a malformed body, a mixture of kinds or too
// many sub-requests fail the whole batch.

// batchWorkers bounds how many sub-requests run at once: enough for the
// store to commit them in groups, few enough to leave room for others.
const batchWorkers = 16

// subResult is one sub-request's answer.
type subResult struct {
	status int
	header http.Header
	body   bytes.Buffer
}

func (r *subResult) Header() http.Header { return r.header }

func (r *subResult) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *subResult) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

// blobBatch is Blob Batch at the account level (POST /?comp=batch).
func (s *Service) blobBatch(w http.ResponseWriter, r *http.Request) error {
	return s.batch(w, r, "")
}

// containerBatch is Blob Batch scoped to a container: every sub-request
// must address a blob of it.
func (s *Service) containerBatch(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := validContainerName(t.Container); err != nil {
		return err
	}
	return s.batch(w, r, t.Container)
}

func (s *Service) batch(w http.ResponseWriter, r *http.Request, container string) error {
	if err := authorizeBatch(r, container); err != nil {
		return err
	}
	subs, err := parseBatch(r)
	if err != nil {
		return err
	}
	if err := sameKind(subs); err != nil {
		return err
	}
	results := make([]*subResult, len(subs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, batchWorkers)
	for i := range subs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = s.runSub(r, container, subs[i])
		}()
	}
	wg.Wait()
	return writeBatchResponse(w, subs, results)
}

// authorizeBatch checks the batch request's own credentials: any valid
// Shared Key or account SAS, or for a container's batch also a service SAS
// of that container. What each sub-request may do is decided with the
// sub-request's credentials.
func authorizeBatch(r *http.Request, container string) error {
	id := request.Of(r).Identity
	if id == nil || id.Kind == auth.Anonymous {
		return azerr.New(azerr.NoAuthenticationInformation)
	}
	level := auth.ResourceService
	if container != "" {
		level = auth.ResourceContainer
	}
	return id.Authorize(auth.Access{Service: auth.Blob, ResourceType: level, Perm: "racwdxltfi",
		Container: container})
}

// sameKind refuses a batch that mixes deletes and tier changes.
func sameKind(subs []subRequest) error {
	first := subs[0].kind()
	for _, sr := range subs[1:] {
		if k := sr.kind(); k != first && k != kindOther && first != kindOther {
			return azerr.Newf(azerr.InvalidInput, "All sub-requests of a batch must be of the same type: Delete Blob or Set Blob Tier.")
		}
	}
	return nil
}

// errors renders a sub-request's errors as the chain renders a request's.
func (s *Service) errors() azerr.Renderer {
	return azerr.Renderer{Format: azerr.XML, Logger: s.logger, Clock: s.clock}
}

// runSub authenticates, routes and serves one sub-request, turning any
// error into its rendered answer.
func (s *Service) runSub(outer *http.Request, container string, sr subRequest) (res *subResult) {
	oi := request.Of(outer)
	info := &request.Info{ID: guid.New(), Account: oi.Account, Version: oi.Version, Start: s.now(), PathStyle: oi.PathStyle}
	res = &subResult{header: http.Header{}}
	res.header.Set(azerr.RequestIDHeader, info.ID)
	res.header.Set("X-Ms-Version", info.Version)
	req := sr.req
	req.Host, req.RemoteAddr, req.TLS = outer.Host, outer.RemoteAddr, outer.TLS
	req = req.WithContext(request.With(outer.Context(), info))
	if id := req.Header.Get("X-Ms-Client-Request-Id"); id != "" {
		res.header.Set("X-Ms-Client-Request-Id", id)
	}
	defer func() {
		if p := recover(); p != nil {
			res = &subResult{header: res.header}
			s.errors().Panic(res, req, p, false)
		}
	}()
	if err := s.serveSub(res, req, info, container, sr); err != nil {
		s.errors().Write(res, req, err)
	}
	if res.status == 0 {
		res.status = http.StatusOK
	}
	return res
}

// serveSub is the part of runSub that can fail with an Azure error.
func (s *Service) serveSub(w http.ResponseWriter, req *http.Request, info *request.Info, container string, sr subRequest) error {
	if sr.kind() == kindOther {
		return azerr.Newf(azerr.InvalidInput, "A batch sub-request must be Delete Blob or Set Blob Tier.")
	}
	info.Path = req.URL.Path
	if info.PathStyle {
		// Path-style sub-requests name the account first, as the outer
		// request does.
		if rest, ok := strings.CutPrefix(info.Path, "/"+info.Account+"/"); ok {
			info.Path = "/" + rest
		}
	}
	id, err := s.authn.Authenticate(req, auth.Blob, info.Account)
	if err != nil {
		return err
	}
	info.Identity = id
	t, level := parsePath(info.Path, req)
	if level != route.Object {
		return azerr.Newf(azerr.InvalidInput, "A batch sub-request must address a blob.")
	}
	if container != "" && t.Container != container {
		return azerr.Newf(azerr.InvalidInput, "The sub-requests of a container's batch must address blobs of that container.")
	}
	if err := validBlobName(t.Blob); err != nil {
		return err
	}
	rule, err := s.routes.Match(req, level)
	if err != nil {
		return err
	}
	return rule.Handle(w, withTarget(req, t))
}

// writeBatchResponse answers 202 with one application/http part per
// sub-request, each carrying the sub-request's Content-ID.
func writeBatchResponse(w http.ResponseWriter, subs []subRequest, results []*subResult) error {
	boundary := "batchresponse_" + guid.New()
	var b bytes.Buffer
	for i, res := range results {
		fmt.Fprintf(&b, "--%s\r\nContent-Type: application/http\r\n", boundary)
		if subs[i].contentID != "" {
			fmt.Fprintf(&b, "Content-ID: %s\r\n", subs[i].contentID)
		}
		fmt.Fprintf(&b, "\r\nHTTP/1.1 %d %s\r\n", res.status, http.StatusText(res.status))
		if res.body.Len() > 0 {
			res.header.Set("Content-Length", itoa(int64(res.body.Len())))
		}
		names := make([]string, 0, len(res.header))
		for name := range res.header {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, v := range res.header[name] {
				fmt.Fprintf(&b, "%s: %s\r\n", subHeaderName(name), v)
			}
		}
		b.WriteString("\r\n")
		b.Write(res.body.Bytes())
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	h := w.Header()
	h.Set("Content-Type", "multipart/mixed; boundary="+boundary)
	h.Set("Content-Length", itoa(int64(b.Len())))
	w.WriteHeader(http.StatusAccepted)
	_, err := w.Write(b.Bytes())
	return err
}

// subHeaderName spells a sub-response header as the service does: its own
// x-ms-* headers in lower case, which the JavaScript SDK's batch parser
// requires (it finds x-ms-error-code by exact name).
func subHeaderName(name string) string {
	if strings.HasPrefix(name, "X-Ms-") {
		return strings.ToLower(name)
	}
	return name
}
