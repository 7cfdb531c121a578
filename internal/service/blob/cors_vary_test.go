package blob_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// TestCORSVaryOverSockets checks the Vary table of "Cross-Origin Resource
// Sharing (CORS) support for the Azure Storage services" end to end: with
// rules set, a GET whose Origin no rule matches (or that carries none)
// answers Vary: Origin, and a HEAD matched by a rule allowing all origins
// answers Access-Control-Allow-Origin: * without Vary.
func TestCORSVaryOverSockets(t *testing.T) {
	e := start(t)
	e.upload(e.container("cors"), "b", []byte("x"))
	before := e.raw(http.MethodGet, "cors/b", http.Header{"Origin": {"http://other.example"}}, nil)
	if v := before.Header.Get("Vary"); v != "" {
		t.Fatalf("Vary %q with no CORS rules", v)
	}
	_, err := e.svc.SetProperties(e.ctx, &service.SetPropertiesOptions{CORS: []*service.CORSRule{
		{AllowedOrigins: to.Ptr("http://app.example"), AllowedMethods: to.Ptr("GET"), AllowedHeaders: to.Ptr(""),
			ExposedHeaders: to.Ptr("x-ms-meta-*"), MaxAgeInSeconds: to.Ptr(int32(60))},
		{AllowedOrigins: to.Ptr("*"), AllowedMethods: to.Ptr("HEAD"), AllowedHeaders: to.Ptr(""),
			ExposedHeaders: to.Ptr(""), MaxAgeInSeconds: to.Ptr(int32(60))},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, origin string
		vary                 bool
		allowOrigin          string
	}{
		{"GET, exact origin", http.MethodGet, "http://app.example", true, "http://app.example"},
		{"GET, no rule matches", http.MethodGet, "http://other.example", true, ""},
		{"GET, no Origin", http.MethodGet, "", true, ""},
		{"HEAD, rule allows all", http.MethodHead, "http://other.example", false, "*"},
		{"HEAD, rule allows all, no Origin", http.MethodHead, "", false, "*"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.origin != "" {
				h.Set("Origin", tc.origin)
			}
			r := e.raw(tc.method, "cors/b", h, nil)
			if r.StatusCode != http.StatusOK {
				t.Fatalf("status %d", r.StatusCode)
			}
			if got := r.Header.Get("Vary") == "Origin"; got != tc.vary {
				t.Errorf("Vary %q, want Origin=%v", r.Header.Get("Vary"), tc.vary)
			}
			if got := r.Header.Get("Access-Control-Allow-Origin"); got != tc.allowOrigin {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tc.allowOrigin)
			}
		})
	}
}
