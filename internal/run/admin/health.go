package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// healthz answers while the process serves.
func (h *Handler) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the store answers a read within two seconds,
// else 503 with the reason.
func (h *Handler) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	start := store.NewKey(store.SpaceMeta).Bytes()
	err := h.opts.Store.View(ctx, func(tx store.Tx) error {
		return tx.Scan(start, store.PrefixEnd(start), store.ScanOptions{Limit: 1}, func(_, _ []byte) bool { return false })
	})
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
