package auth

import (
	"encoding/base64"
	"net/http"
	"strconv"
)

// SignSharedKey signs a client request with Shared Key, as the Azure SDKs
// do: the lean benchmark client and tests that speak raw HTTP use it. The
// request must already carry x-ms-date (or Date) and x-ms-version; its
// Content-Length header is set from r.ContentLength (Go's client sends the
// field and ignores the header, so both agree).
func SignSharedKey(r *http.Request, svc Service, account string, key []byte) {
	if r.ContentLength > 0 {
		r.Header.Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	sts := primaryStringToSign(r, svc, schemeSharedKey, account)
	r.Header.Set("Authorization", "SharedKey "+account+":"+base64.StdEncoding.EncodeToString(sign(key, sts)))
}
