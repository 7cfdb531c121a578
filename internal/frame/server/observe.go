package server

import (
	"io"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
)

// countingBody counts the request body bytes a handler reads.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// observe reports the answered request to the Observer.
func (c *chain) observe(w *statusWriter, info *request.Info, in int64) {
	if c.opts.Observer == nil {
		return
	}
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	c.opts.Observer.Request(string(c.svc.Name()), info.Op, status, errorCode(w.Header()),
		in, w.bytes, time.Since(w.began))
}
