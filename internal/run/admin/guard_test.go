package admin_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/frame/fault"
	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"
	"github.com/lazuli-storage/lazuli/internal/run/admin"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// route is one admin or console route, with a request that would change
// or read something real on the server guardServer starts.
type route struct {
	method, path, body string
}

// selected names guardServer's leased blob and its queue.
var selected = url.Values{"account": {lazulitest.Account}, "container": {"kept"}, "blob": {"leased"}, "queue": {"work"}}.Encode()

// changingRoutes are every route that changes something.
var changingRoutes = []route{
	{"POST", "/clock/advance?by=1h", ""},
	{"POST", "/clock/pin?at=2031-01-01T00:00:00Z", ""},
	{"POST", "/clock/release", ""},
	{"POST", "/faults", `{"status":503}`},
	{"DELETE", "/faults", ""},
	{"DELETE", "/faults/1", ""},
	{"POST", "/reset", ""},
	{"POST", "/api/break-lease?" + selected, ""},
	{"POST", "/api/delete-blob?" + selected, ""},
	{"POST", "/api/clear-queue?" + selected, ""},
	{"POST", "/api/rest/DELETE/queue/" + lazulitest.Account + "/work%2Fmessages", ""},
}

// readingRoutes are every route that answers data.
var readingRoutes = []route{
	{"GET", "/clock", ""},
	{"GET", "/faults", ""},
	{"GET", "/metrics", ""},
	{"GET", "/healthz", ""},
	{"GET", "/readyz", ""},
	{"GET", "/csrf", ""},
	{"GET", "/api/overview", ""},
	{"GET", "/api/blobs?" + selected, ""},
	{"GET", "/api/messages?" + selected, ""},
	{"GET", "/api/entities?" + selected + "&table=t", ""},
	{"GET", "/api/files?" + selected + "&share=s", ""},
	{"GET", "/api/download?" + selected, ""},
}

// pageRoutes are the console page and its assets, which any page may
// navigate to.
var pageRoutes = []route{{"GET", "/", ""}, {"GET", "/console/app.js", ""}}

// guarded is a server with something every changing route would change:
// a fault rule, a leased blob, a queued message, a clock that stands still.
type guarded struct {
	*lazulitest.Instance
	rule  fault.Rule
	start time.Time
}

func guardServer(t *testing.T, configure func(*config.Config)) *guarded {
	t.Helper()
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob", "queue"}, Configure: configure})
	ctx := context.Background()
	client := blobClient(t, in, noRetry)
	if _, err := client.CreateContainer(ctx, "kept", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.UploadBuffer(ctx, "kept", "leased", []byte("secret"), nil); err != nil {
		t.Fatal(err)
	}
	leaser, _ := lease.NewBlobClient(client.ServiceClient().NewContainerClient("kept").NewBlobClient("leased"), nil)
	if _, err := leaser.AcquireLease(ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	q := queueClient(t, in).NewQueueClient("work")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := q.EnqueueMessage(ctx, "job", nil); err != nil {
		t.Fatal(err)
	}
	rule, err := in.App.Faults.Add(fault.Rule{Operation: "SetBlobTier", Status: 503})
	if err != nil {
		t.Fatal(err)
	}
	return &guarded{Instance: in, rule: rule, start: in.Clock.Now()}
}

// untouched fails the test if any changing route got through.
func (g *guarded) untouched(t *testing.T) {
	t.Helper()
	if rules := g.App.Faults.List(); len(rules) != 1 || rules[0].ID != g.rule.ID {
		t.Errorf("fault rules changed: %+v", rules)
	}
	if now := g.Clock.Now(); !now.Equal(g.start) {
		t.Errorf("the clock moved from %v to %v", g.start, now)
	}
	ctx := context.Background()
	props, err := blobClient(t, g.Instance, noRetry).ServiceClient().NewContainerClient("kept").NewBlobClient("leased").GetProperties(ctx, nil)
	if err != nil {
		t.Errorf("the blob is gone: %v", err)
	} else if *props.LeaseState != lease.StateTypeLeased {
		t.Errorf("the blob's lease is %s", *props.LeaseState)
	}
	peek, err := queueClient(t, g.Instance).NewQueueClient("work").PeekMessages(ctx, &azqueue.PeekMessagesOptions{})
	if err != nil || len(peek.Messages) != 1 {
		t.Errorf("the queue lost its message: %v %v", peek, err)
	}
}

// send makes one request to the admin listener with extra headers (Host
// among them) and returns the answer's status, headers and body.
func send(t *testing.T, adminURL string, rt route, header http.Header) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(rt.method, adminURL+rt.path, strings.NewReader(rt.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(raw)
}

// refused checks that rt with header is answered status with a JSON error.
func refused(t *testing.T, adminURL string, rt route, header http.Header, status int) {
	t.Helper()
	got, h, body := send(t, adminURL, rt, header)
	var answer struct{ Error string }
	if got != status || h.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(body), &answer) != nil || answer.Error == "" {
		t.Errorf("%s %s with %v: %d %s %s, want %d with a JSON error", rt.method, rt.path, header, got, h.Get("Content-Type"), body, status)
	}
}

func adminPort(in *lazulitest.Instance) string {
	u, _ := url.Parse(in.AdminURL)
	return u.Port()
}

// A request naming another host (a DNS-rebound name, or this machine's
// address on another port) is refused on every route, the page included;
// the listener's own names and those given with --adminHosts are served.
func TestReboundHostRefused(t *testing.T) {
	g := guardServer(t, func(c *config.Config) { c.AdminHosts = []string{"lazuli.test"} })
	port := adminPort(g.Instance)
	all := append(append(append([]route{}, changingRoutes...), readingRoutes...), pageRoutes...)
	for _, host := range []string{"rebind.evil.test:" + port, "rebind.evil.test", "127.0.0.1:1", "localhost", "lazuli.test.evil:" + port} {
		for _, rt := range all {
			refused(t, g.AdminURL, rt, http.Header{"Host": {host}}, http.StatusMisdirectedRequest)
		}
	}
	g.untouched(t)
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port, "0.0.0.0:" + port, "lazuli.test:" + port, "lazuli.test"} {
		if status, _, body := send(t, g.AdminURL, route{"GET", "/api/overview", ""}, http.Header{"Host": {host}}); status != 200 {
			t.Errorf("Host %s: %d %s", host, status, body)
		}
	}
}

// A page on another origin (Origin names it) changes nothing and reads
// nothing; nor does a browser that says the request is cross-site or
// same-site (Sec-Fetch-Site), whatever the content type.
func TestCrossSiteRefused(t *testing.T) {
	g := guardServer(t, nil)
	own := "http://127.0.0.1:" + adminPort(g.Instance)
	foreign := []http.Header{
		{"Origin": {"http://evil.test"}},
		{"Origin": {"null"}},
		{"Origin": {"http://127.0.0.1:1"}},
		{"Origin": {"http://evil.test"}, "Content-Type": {"application/json"}},
		{"Sec-Fetch-Site": {"cross-site"}},
		{"Sec-Fetch-Site": {"cross-site"}, "Content-Type": {"application/json"}},
		{"Sec-Fetch-Site": {"same-site"}},
		{"Sec-Fetch-Site": {"cross-site"}, "Origin": {own}, "Content-Type": {"application/json"}},
	}
	for _, header := range foreign {
		for _, rt := range append(append([]route{}, changingRoutes...), readingRoutes...) {
			refused(t, g.AdminURL, rt, header, http.StatusForbidden)
		}
	}
	g.untouched(t)
	// The page may be navigated to from anywhere, but never framed.
	for _, rt := range pageRoutes {
		status, h, _ := send(t, g.AdminURL, rt, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"navigate"}})
		if status != 200 || h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v, want 200 that no page may frame", rt.path, status, h)
		}
	}
}

// csrfToken reads the token the console page sends with its actions.
func csrfToken(t *testing.T, adminURL string) string {
	t.Helper()
	status, _, body := send(t, adminURL, route{"GET", "/csrf", ""}, http.Header{"Sec-Fetch-Site": {"same-origin"}})
	var answer struct{ Header, Token string }
	if status != 200 || json.Unmarshal([]byte(body), &answer) != nil || answer.Header != "X-Lazuli-Csrf" || len(answer.Token) < 32 {
		t.Fatalf("GET /csrf: %d %s", status, body)
	}
	return answer.Token
}

// A browser marks every request that changes something with Origin
// (Fetch, "append a request Origin header"); such a request needs the
// console's token or a content type no form can send. Tools send no
// Origin and are served as before, whatever their content type.
func TestBrowserWritesNeedProof(t *testing.T) {
	g := guardServer(t, nil)
	own := "http://127.0.0.1:" + adminPort(g.Instance)
	token := csrfToken(t, g.AdminURL)
	addRule := route{"POST", "/faults", `{"operation":"GetBlob","status":500}`}
	for _, c := range []struct {
		header http.Header
		want   int
	}{
		// curl -X POST, Go's http.Post, Node's fetch, curl -d: no Origin.
		{http.Header{}, 201},
		{http.Header{"Content-Type": {"application/json"}}, 201},
		{http.Header{"Content-Type": {"text/plain;charset=UTF-8"}, "Sec-Fetch-Mode": {"cors"}}, 201},
		{http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, 201},
		// A page of this origin.
		{http.Header{"Origin": {own}, "Content-Type": {"text/plain"}}, 403},
		{http.Header{"Origin": {own}, "Content-Type": {"application/x-www-form-urlencoded"}}, 403},
		{http.Header{"Origin": {own}, "Content-Type": {"multipart/form-data; boundary=x"}}, 403},
		{http.Header{"Origin": {own}}, 403},
		{http.Header{"Origin": {own}, "Content-Type": {"text/plain"}, "X-Lazuli-Csrf": {"guess"}}, 403},
		{http.Header{"Sec-Fetch-Site": {"same-origin"}, "Content-Type": {"text/plain"}}, 403},
		{http.Header{"Origin": {own}, "Content-Type": {"text/plain"}, "X-Lazuli-Csrf": {token}}, 201},
		{http.Header{"Origin": {own}, "Sec-Fetch-Site": {"same-origin"}, "X-Lazuli-Csrf": {token}}, 201},
		{http.Header{"Origin": {own}, "Content-Type": {"application/json"}}, 201},
	} {
		before := len(g.App.Faults.List())
		status, _, body := send(t, g.AdminURL, addRule, c.header)
		if status != c.want {
			t.Errorf("POST /faults with %v: %d %s, want %d", c.header, status, body, c.want)
		}
		if added := len(g.App.Faults.List()) - before; (added == 1) != (c.want == 201) {
			t.Errorf("POST /faults with %v added %d rules", c.header, added)
		}
	}
	// The token is the process's own: the same on every read.
	if again := csrfToken(t, g.AdminURL); again != token {
		t.Errorf("the token changed from %q to %q", token, again)
	}
}

// Every answer tells the browser not to guess its type.
func TestEveryAnswerIsNosniff(t *testing.T) {
	g := guardServer(t, nil)
	all := append(append(append([]route{}, readingRoutes...), pageRoutes...), route{"GET", "/nowhere", ""})
	for _, rt := range all {
		if _, h, _ := send(t, g.AdminURL, rt, nil); h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: X-Content-Type-Options %q", rt.method, rt.path, h.Get("X-Content-Type-Options"))
		}
	}
	refused(t, g.AdminURL, route{"GET", "/clock", ""}, http.Header{"Host": {"rebind.evil.test"}}, http.StatusMisdirectedRequest)
	if _, h, _ := send(t, g.AdminURL, route{"GET", "/clock", ""}, http.Header{"Host": {"rebind.evil.test"}}); h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("a refusal lacks nosniff: %v", h)
	}
}

// Callers from other hosts with --adminToken are served as before: by
// bearer header under any host name (a rebound page cannot send it), or
// by cookie, which a browser sends with cross-site requests too, so the
// cookie's requests need the same proof as a local browser's.
func TestTokenCallers(t *testing.T) {
	h := admin.New(admin.Options{Faults: &fault.Set{}, Token: "s3cret", Hosts: []string{"lazuli.example"}})
	do := func(method, target, host string, header http.Header, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.RemoteAddr, req.Host = "192.0.2.7:5000", host
		for k, v := range header {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	bearer := http.Header{"Authorization": {"Bearer s3cret"}}
	cookie := http.Header{"Cookie": {"lazuli_admin_token=s3cret"}}
	rec := do("GET", "/csrf", "lazuli.example:10009", cookie, "")
	var csrf struct{ Token string }
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &csrf) != nil {
		t.Fatalf("GET /csrf with the cookie: %d %s", rec.Code, rec.Body)
	}
	rule := `{"status":503}`
	for _, c := range []struct {
		method, host string
		header       http.Header
		want         int
	}{
		{"GET", "lazuli.example:10009", bearer, 200},
		{"POST", "lazuli.example:10009", bearer, 201},
		{"POST", "203.0.113.50:20009", bearer, 201},
		{"POST", "any.name.example", bearer, 201},
		{"POST", "lazuli.example:10009", http.Header{}, 403},
		{"POST", "lazuli.example:10009", http.Header{"Authorization": {"Bearer wrong"}}, 403},
		{"GET", "lazuli.example:10009", cookie, 200},
		{"GET", "lazuli.example:10009", with(cookie, "Sec-Fetch-Site", "cross-site"), 403},
		{"POST", "lazuli.example:10009", with(with(cookie, "Origin", "http://evil.test"), "Content-Type", "text/plain"), 403},
		{"POST", "lazuli.example:10009", with(with(cookie, "Origin", "http://lazuli.example:10009"), "Content-Type", "text/plain"), 403},
		{"POST", "lazuli.example:10009", with(with(cookie, "Origin", "http://lazuli.example:10009"), "X-Lazuli-Csrf", csrf.Token), 201},
		{"POST", "lazuli.example:10009", with(with(cookie, "Origin", "https://lazuli.example:10009"), "X-Lazuli-Csrf", csrf.Token), 201},
	} {
		if rec := do(c.method, "/faults", c.host, c.header, rule); rec.Code != c.want {
			t.Errorf("%s /faults to %s with %v: %d %s, want %d", c.method, c.host, c.header, rec.Code, rec.Body, c.want)
		}
	}
	// ?token= sets the cookie, which no other site's request carries.
	rec = do("GET", "/?token=s3cret", "lazuli.example:10009", nil, "")
	if c := rec.Result().Cookies(); len(c) != 1 || c[0].SameSite != http.SameSiteStrictMode || !c[0].HttpOnly {
		t.Errorf("?token= set %v, want one SameSite=Strict HttpOnly cookie", c)
	}
}

// with returns a copy of h with one more header.
func with(h http.Header, name, value string) http.Header {
	out := h.Clone()
	out.Set(name, value)
	return out
}

// A request the server's own copy fetcher sends (marked with
// fetchguard.OwnFetchHeader) is refused on every route, from loopback and
// with the token: a SAS holder must not reach the admin listener through
// a copy source, however the address check is evaded (NAT, a port
// forwarded to this machine, another node's listener).
func TestOwnCopyFetchRefused(t *testing.T) {
	g := guardServer(t, nil)
	marked := http.Header{fetchguard.OwnFetchHeader: {"1"}}
	for _, rt := range append(append(append([]route{}, changingRoutes...), readingRoutes...), pageRoutes...) {
		refused(t, g.AdminURL, rt, marked, http.StatusForbidden)
	}
	g.untouched(t)
	h := admin.New(admin.Options{Faults: &fault.Set{}, Token: "s3cret"})
	req := httptest.NewRequest("GET", "/faults", nil)
	req.RemoteAddr = "127.0.0.1:5000"
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set(fetchguard.OwnFetchHeader, "1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a marked fetch with the token: %d %s, want 403", rec.Code, rec.Body)
	}
}
