package admin_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/frame/fault"
)

// syncBuffer is an access log the server writes from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// faultServer runs the blob service with two containers of two blobs.
func faultServer(t *testing.T) (*lazulitest.Instance, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"},
		AccessLog: slog.New(slog.NewTextHandler(log, nil))})
	client := blobClient(t, in, noRetry)
	ctx := context.Background()
	for _, c := range []string{"hit", "miss"} {
		if _, err := client.CreateContainer(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
		for _, b := range []string{"a", "b"} {
			if _, err := client.UploadBuffer(ctx, c, b, bytes.Repeat([]byte("z"), 1000), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	return in, log
}

// A rule selecting one operation under one prefix answers exactly the
// requests it selects, Count times, and leaves every other request alone.
func TestFaultRuleHitsExactlyTheMatchingRequests(t *testing.T) {
	in, log := faultServer(t)
	client := blobClient(t, in, noRetry)
	ctx := context.Background()
	var rule fault.Rule
	call(t, in, "POST", "/faults", `{"service":"blob","operation":"GetBlob","prefix":"/hit/","count":3,"status":503}`, 201, &rule)
	if rule.ID == 0 || rule.Code != "ServerBusy" {
		t.Fatalf("added %+v", rule)
	}
	var failures []string
	get := func(c, b string) {
		_, err := client.DownloadBuffer(ctx, c, b, make([]byte, 1000), nil)
		switch {
		case err == nil:
		case bloberror.HasCode(err, bloberror.ServerBusy):
			var re *azcore.ResponseError
			if errors.As(err, &re) && re.StatusCode != 503 {
				t.Errorf("status %d", re.StatusCode)
			}
			failures = append(failures, c+"/"+b)
		default:
			t.Fatalf("%s/%s: %v", c, b, err)
		}
	}
	// Interleave selected and unselected requests.
	for range 3 {
		get("miss", "a")
		get("hit", "a")
		if _, err := client.ServiceClient().NewContainerClient("hit").NewBlobClient("b").GetProperties(ctx, nil); err != nil {
			t.Fatalf("GetBlobProperties was hit: %v", err)
		}
		get("hit", "b")
	}
	want := []string{"hit/a", "hit/b", "hit/a"}
	if fmt.Sprint(failures) != fmt.Sprint(want) {
		t.Fatalf("failed requests %v, want %v", failures, want)
	}
	var list struct{ Rules []fault.Rule }
	call(t, in, "GET", "/faults", "", 200, &list)
	if len(list.Rules) != 1 || list.Rules[0].Seen != 6 || list.Rules[0].Injected != 3 {
		t.Fatalf("rules %+v, want seen 6 injected 3", list.Rules)
	}
	if n := strings.Count(log.String(), fmt.Sprintf("fault_rule=%d", rule.ID)); n != 3 {
		t.Fatalf("%d access-log lines marked as injected, want 3:\n%s", n, log)
	}
	call(t, in, "DELETE", "/faults", "", 200, nil)
	call(t, in, "GET", "/faults", "", 200, &list)
	if len(list.Rules) != 0 {
		t.Fatalf("rules left after clearing: %+v", list.Rules)
	}
}

// An SDK's retry policy rides over an injected 503: the call succeeds and
// the rule reports the one answer it injected.
func TestRetryPolicyHandlesInjectedServerBusy(t *testing.T) {
	in, _ := faultServer(t)
	client := blobClient(t, in, azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: 3,
		RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond}})
	var rule fault.Rule
	call(t, in, "POST", "/faults", `{"operation":"GetBlob","count":1,"code":"ServerBusy"}`, 201, &rule)
	if _, err := client.DownloadBuffer(context.Background(), "hit", "a", make([]byte, 1000), nil); err != nil {
		t.Fatalf("download with retries: %v", err)
	}
	var list struct{ Rules []fault.Rule }
	call(t, in, "GET", "/faults", "", 200, &list)
	if list.Rules[0].Injected != 1 || list.Rules[0].Seen != 2 {
		t.Fatalf("rule %+v, want one injection among two attempts", list.Rules[0])
	}
}

// A close rule sends the headers and half the body, then drops the
// connection; a latency rule delays without failing; every Nth fires on
// the Nth selected request.
func TestCloseLatencyAndEveryNth(t *testing.T) {
	in, _ := faultServer(t)
	url := blobClient(t, in, noRetry).ServiceClient().NewContainerClient("hit").NewBlobClient("a").URL()
	call(t, in, "POST", "/faults", `{"operation":"GetBlob","count":1,"close":true}`, 201, nil)
	resp, err := signedGet(t, url)
	if err != nil {
		t.Fatalf("close rule: the response did not start: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || len(body) != 500 || resp.ContentLength != 1000 {
		t.Fatalf("close rule: read %d of %d bytes, err %v; want 500 and an error", len(body), resp.ContentLength, err)
	}
	call(t, in, "DELETE", "/faults", "", 200, nil)

	call(t, in, "POST", "/faults", `{"operation":"GetBlob","latency":"20ms","every":2}`, 201, nil)
	for range 4 {
		resp, err := signedGet(t, url)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(resp.Body); len(b) != 1000 || resp.StatusCode != 200 {
			t.Fatalf("latency rule: %d, %d bytes", resp.StatusCode, len(b))
		}
		resp.Body.Close()
	}
	var list struct{ Rules []fault.Rule }
	call(t, in, "GET", "/faults", "", 200, &list)
	if list.Rules[0].Seen != 4 || list.Rules[0].Injected != 2 {
		t.Fatalf("every-2nd rule %+v, want 2 of 4", list.Rules[0])
	}
}

func TestFaultRuleValidation(t *testing.T) {
	in, _ := faultServer(t)
	for _, body := range []string{`{"status":503,"service":"tables"}`, `{"status":299}`, `{"service":"blob"}`,
		`{"status":503,"surprise":1}`, `not json`, `{"latency":"soon"}`} {
		call(t, in, "POST", "/faults", body, 400, nil)
	}
	call(t, in, "DELETE", "/faults/99", "", 404, nil)
	var rule fault.Rule
	call(t, in, "POST", "/faults", `{"status":500}`, 201, &rule)
	call(t, in, "DELETE", fmt.Sprintf("/faults/%d", rule.ID), "", 204, nil)
}

// signedGet reads a blob with a plain HTTP client, so that a cut body is
// seen as it arrives.
func signedGet(t *testing.T, url string) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	signBlob(req)
	return http.DefaultTransport.RoundTrip(req)
}
