package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Blob Batch runs up to 256 Delete Blob or Set Blob Tier sub-requests of
// one multipart/mixed body. Each sub-request is a complete request, served
// through the same server chain as any request (request.Info.Chain): it
// gets its own request id, is authenticated with its own credentials
// (Shared Key or SAS), takes the batch's version unless it names one, is
// routed through the service's route table to the same handler a lone
// request reaches (Delete Blob, or Set Blob Tier in tier.go) and authorized
// there, and is answered in its own part of the response, in the order of
// the body. A failing sub-request fails alone; only a malformed body, a
// mixture of kinds or too many sub-requests fail the whole batch.

// batchWorkers bounds how many sub-requests run at once: enough for the
// store to commit them in groups, few enough to leave room for others.
const batchWorkers = 16

// subResult is one sub-request's answer.
type subResult struct {
	status int
	header http.Header
	body   bytes.Buffer
	// aborted is set when the chain dropped the sub-request's connection
	// (a fault rule cut it): the batch's connection is dropped then.
	aborted bool
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
	subs, err := parseBatch(r)
	var env *envelopeError
	if errors.As(err, &env) {
		return writeBatchResponse(w, []subRequest{{}}, []*subResult{s.failedPart(w, env.err)})
	}
	if err != nil {
		return err
	}
	if err := sameKind(subs); err != nil {
		return err
	}
	chain := request.Of(r).Chain
	if chain == nil {
		return errors.New("blob batch: no server chain to serve the sub-requests through")
	}
	results := make([]*subResult, len(subs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, batchWorkers)
	for i := range subs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = s.runSub(chain, r, container, subs[i])
		}()
	}
	wg.Wait()
	for _, res := range results {
		if res.aborted {
			panic(http.ErrAbortHandler)
		}
	}
	return writeBatchResponse(w, subs, results)
}

// failedPart is the answer e of the batch itself, as a part: the batch's
// request id and version, the error code, and the XML error body.
func (s *Service) failedPart(w http.ResponseWriter, e *azerr.Error) *subResult {
	res := &subResult{status: e.Status, header: http.Header{}}
	for _, name := range []string{"X-Ms-Request-Id", "X-Ms-Version", "X-Ms-Client-Request-Id"} {
		if v := w.Header().Get(name); v != "" {
			res.header.Set(name, v)
		}
	}
	res.header.Set(azerr.ErrorCodeHeader, e.Code)
	res.header.Set("Content-Type", "application/xml")
	res.body.Write(azerr.Body(e, w.Header().Get(azerr.RequestIDHeader), s.now(), azerr.XML))
	return res
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

// runSub serves one sub-request through the server chain, confined to
// what a batch may do (batchScope), and returns its answer.
func (s *Service) runSub(chain http.Handler, outer *http.Request, container string, sr subRequest) (res *subResult) {
	res = &subResult{header: http.Header{}}
	req := sr.req
	req.Host, req.RemoteAddr, req.TLS = outer.Host, outer.RemoteAddr, outer.TLS
	req = req.WithContext(context.WithValue(outer.Context(), batchScopeKey{}, batchScope{container: container}))
	defer func() {
		// The chain answers every panic but the one that drops the
		// connection, which cannot cross this goroutine: the batch
		// re-raises it.
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				s.logger.Error("batch sub-request: panic outside the chain", "panic", fmt.Sprint(p))
			}
			res.aborted = true
		}
	}()
	chain.ServeHTTP(res, req)
	if res.status == 0 {
		res.status = http.StatusOK
	}
	return res
}

// batchScope confines a sub-request to what a batch may hold: Delete Blob
// or Set Blob Tier, of a blob, and of the batch's container when the batch
// is a container's. Handle applies it once the chain has resolved the
// sub-request's path.
type batchScope struct{ container string }

type batchScopeKey struct{}

// batchScopeOf is the scope of a batch sub-request; ok is false for a
// request of its own.
func batchScopeOf(r *http.Request) (batchScope, bool) {
	sc, ok := r.Context().Value(batchScopeKey{}).(batchScope)
	return sc, ok
}

func (sc batchScope) admit(r *http.Request, t target, level route.Level) error {
	if batchKindOf(r) == kindOther {
		return azerr.Newf(azerr.InvalidInput, "A batch sub-request must be Delete Blob or Set Blob Tier.")
	}
	if level != route.Object {
		return azerr.Newf(azerr.InvalidInput, "A batch sub-request must address a blob.")
	}
	if sc.container != "" && t.Container != sc.container {
		return azerr.Newf(azerr.InvalidInput, "The sub-requests of a container's batch must address blobs of that container.")
	}
	return nil
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
			if name != "Date" && name != "Server" {
				// The service's sub-responses carry neither: the
				// batch's own response does.
				names = append(names, name)
			}
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
