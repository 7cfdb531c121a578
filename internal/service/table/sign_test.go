package table_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// signLite signs req with Shared Key Lite for the Table service:
// StringToSign = Date + "\n" + CanonicalizedResource, where the resource is
// /account/<path as sent> plus ?comp= when present.
func signLite(t *testing.T, req *http.Request) {
	t.Helper()
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	resource := "/" + lazulitest.Account + req.URL.EscapedPath()
	if comp := req.URL.Query().Get("comp"); comp != "" {
		resource += "?comp=" + comp
	}
	mac := hmac.New(sha256.New, lazulitest.KeyBytes())
	mac.Write([]byte(date + "\n" + resource))
	req.Header.Set("Authorization", "SharedKeyLite "+lazulitest.Account+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
}
