package blob

import (
	"io"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blob/quickquery"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// queryBlob is Query Blob Contents (POST ?comp=query): the SQL of the
// request body runs over the block blob's content, read as CSV or JSON, and
// the results stream back inside the Avro container the SDKs' quick query
// readers parse. The response carries Get Blob's headers, with the content
// type avro/binary and no length (it is streamed).
func (s *Service) queryBlob(w http.ResponseWriter, r *http.Request) error {
	a, err := parseRead(r)
	if err != nil {
		return err
	}
	req, err := quickquery.ParseRequest(r.Body)
	if err != nil {
		return err
	}
	b, err := s.viewBlob(r, a.conds, a.sel)
	if err != nil {
		return err
	}
	now := s.now()
	if b.Type != blobdata.BlockBlob {
		return azerr.New(azerr.InvalidBlobType)
	}
	if b.ArchivedAt(now) {
		return azerr.New(azerr.BlobArchived)
	}
	segs, err := b.Segments()
	if err != nil {
		return err
	}
	c, err := blobdata.OpenContent(r.Context(), s.extents, segs, 0, b.Size)
	if err != nil {
		return err
	}
	defer c.Close()
	h := w.Header()
	setBlobHeaders(h, b, now)
	setIdentityHeaders(h, b, b.LoadedFrom == blobdata.ElemBase, now)
	h.Set("Content-Type", "avro/binary")
	h.Del("Content-Length")
	w.WriteHeader(http.StatusOK)

	content, feed := io.Pipe()
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		_, err := c.WriteTo(feed)
		feed.CloseWithError(err)
	}()
	// A query that stops early (LIMIT, a fatal error) closes the pipe, which
	// ends the copy; the extents are closed only after it has.
	defer func() { content.Close(); <-fed }()
	sink := quickquery.NewAvroSink(flushingWriter{w})
	if err := quickquery.Run(r.Context(), req.Query, content, b.Size, req.Input, req.Output, sink, now); err != nil {
		// The status is sent; the client sees the stream end without its
		// end record.
		s.logger.Log(r.Context(), request.InterruptedLevel(r, err), "blob query interrupted", "request_id", request.Of(r).ID, "err", err)
	}
	return nil
}

// flushingWriter sends each Avro block as it is written, so that progress
// and results reach the client while a long query runs.
type flushingWriter struct{ w http.ResponseWriter }

func (f flushingWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = http.NewResponseController(f.w).Flush()
	}
	return n, err
}
