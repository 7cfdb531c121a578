package queue_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// env is one test server with a queue service client on it.
type env struct {
	t   *testing.T
	in  *lazulitest.Instance
	svc *azqueue.ServiceClient
	ctx context.Context
}

// start runs an in-memory server unless opts say otherwise.
func start(t *testing.T, opts lazulitest.Options) *env {
	t.Helper()
	opts.Services = []string{"queue"}
	in := lazulitest.Start(t, opts)
	e := &env{t: t, in: in, ctx: context.Background()}
	e.connect()
	return e
}

// connect (re)builds the client for the server's current endpoint.
func (e *env) connect() {
	e.t.Helper()
	svc, err := azqueue.NewServiceClientFromConnectionString(e.in.ConnectionString, e.clientOptions())
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc = svc
}

// clientOptions disables retries, so that an error answer reaches the test
// as it was sent, and a slow answer is not hidden.
func (e *env) clientOptions() *azqueue.ClientOptions {
	return &azqueue.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
}

// doSigned sends a raw request signed with the account key and returns the
// response with its body read.
func (e *env) doSigned(req *http.Request) (*http.Response, string) {
	e.t.Helper()
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.Queue, lazulitest.Account, lazulitest.KeyBytes())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, string(body)
}

// queue creates a queue and returns its client.
func (e *env) queue(name string) *azqueue.QueueClient {
	e.t.Helper()
	q := e.svc.NewQueueClient(name)
	if _, err := q.Create(e.ctx, nil); err != nil {
		e.t.Fatalf("create %s: %v", name, err)
	}
	return q
}

// put enqueues text and returns the SDK's view of the new message.
func (e *env) put(q *azqueue.QueueClient, text string, opts *azqueue.EnqueueMessageOptions) *azqueue.EnqueuedMessage {
	e.t.Helper()
	resp, err := q.EnqueueMessage(e.ctx, text, opts)
	if err != nil {
		e.t.Fatalf("enqueue %q: %v", text, err)
	}
	if len(resp.Messages) != 1 {
		e.t.Fatalf("enqueue returned %d messages", len(resp.Messages))
	}
	return resp.Messages[0]
}

// get dequeues up to n messages hidden for vis seconds.
func (e *env) get(q *azqueue.QueueClient, n, vis int32) []*azqueue.DequeuedMessage {
	e.t.Helper()
	resp, err := q.DequeueMessages(e.ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: &n, VisibilityTimeout: &vis})
	if err != nil {
		e.t.Fatalf("dequeue: %v", err)
	}
	return resp.Messages
}

// peek returns up to n visible messages.
func (e *env) peek(q *azqueue.QueueClient, n int32) []*azqueue.PeekedMessage {
	e.t.Helper()
	resp, err := q.PeekMessages(e.ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: &n})
	if err != nil {
		e.t.Fatalf("peek: %v", err)
	}
	return resp.Messages
}

// count is the queue's approximate message count.
func (e *env) count(q *azqueue.QueueClient) int32 {
	e.t.Helper()
	resp, err := q.GetProperties(e.ctx, nil)
	if err != nil {
		e.t.Fatalf("get properties: %v", err)
	}
	return *resp.ApproximateMessagesCount
}

// advance moves the server's fake clock.
func (e *env) advance(d time.Duration) { e.in.Fake.Advance(d) }

// wantError checks that err is an Azure error with the given status and code.
func wantError(t *testing.T, err error, status int, code string) *azcore.ResponseError {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want %d %s", err, status, code)
	}
	if re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("got %d %s, want %d %s", re.StatusCode, re.ErrorCode, status, code)
	}
	return re
}

// raw sends a request signed with the account key and returns the response
// with its body read.
func (e *env) raw(method, path string, body string, header http.Header) (*http.Response, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(e.in.QueueURL, "/")+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if req.Header.Get("x-ms-version") == "" {
		req.Header.Set("x-ms-version", "2024-08-04")
	}
	return e.doSigned(req)
}

func ptr[T any](v T) *T { return &v }
