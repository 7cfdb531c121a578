package file

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/azerr"
)

// copySourceToken reads x-ms-copy-source-authorization: an OAuth access
// token for the copy source, "Bearer <token>", the only scheme the service
// takes there. "" when the header is absent.
func copySourceToken(r *http.Request) (string, error) {
	v := r.Header.Get("X-Ms-Copy-Source-Authorization")
	if v == "" {
		return "", nil
	}
	if token, ok := strings.CutPrefix(v, "Bearer "); !ok || strings.TrimSpace(token) == "" {
		return "", azerr.InvalidHeader("x-ms-copy-source-authorization", v)
	}
	return v, nil
}
