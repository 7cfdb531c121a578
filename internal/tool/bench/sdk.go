//go:build sdkbench

package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	blobservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// The SDK driver runs each scenario's workload through the official Azure
// SDK for Go clients: the same names, data and operations as the lean
// client, plus whatever the SDK costs (pipeline policies, request building,
// response parsing). The null target answers each operation with the
// status the SDK expects, so every scenario runs against it too, except
// that list-blobs counts an error per operation in both drivers: the null
// listing is empty.

// sdkClient holds the one SDK service client a scenario run shares between
// its workers.
type sdkClient struct {
	target Target
	blob   *blobservice.Client
	queue  *azqueue.ServiceClient
	table  *aztables.ServiceClient
	file   *fileservice.Client
}

// sdkOptions are the azcore options every SDK client gets: the benchmark's
// sized keep-alive transport, and no retries, so that a failed operation is
// counted instead of being hidden (and timed) behind its retries.
func sdkOptions(conns int) azcore.ClientOptions {
	return azcore.ClientOptions{
		Transport: countingTransport{newHTTPClient(conns)},
		Retry:     policy.RetryOptions{MaxRetries: -1},
	}
}

// newSDKClient builds the SDK service client for svc with the target's
// account key.
func newSDKClient(t Target, svc auth.Service, conns int) (*sdkClient, error) {
	url := t.endpoint(svc)
	if url == "" {
		return nil, fmt.Errorf("target %s has no %s endpoint", t.Name, svc)
	}
	opts := sdkOptions(conns)
	c := &sdkClient{target: t}
	var err error
	switch svc {
	case auth.Blob:
		var cred *blobservice.SharedKeyCredential
		if cred, err = blobservice.NewSharedKeyCredential(t.Account, t.Key); err == nil {
			c.blob, err = blobservice.NewClientWithSharedKeyCredential(url, cred, &blobservice.ClientOptions{ClientOptions: opts})
		}
	case auth.Queue:
		var cred *azqueue.SharedKeyCredential
		if cred, err = azqueue.NewSharedKeyCredential(t.Account, t.Key); err == nil {
			c.queue, err = azqueue.NewServiceClientWithSharedKeyCredential(url, cred, &azqueue.ClientOptions{ClientOptions: opts})
		}
	case auth.Table:
		var cred *aztables.SharedKeyCredential
		if cred, err = aztables.NewSharedKeyCredential(t.Account, t.Key); err == nil {
			c.table, err = aztables.NewServiceClientWithSharedKey(url, cred, &aztables.ClientOptions{ClientOptions: opts})
		}
	case auth.File:
		var cred *fileservice.SharedKeyCredential
		if cred, err = fileservice.NewSharedKeyCredential(t.Account, t.Key); err == nil {
			c.file, err = fileservice.NewClientWithSharedKeyCredential(url, cred, &fileservice.ClientOptions{ClientOptions: opts})
		}
	default:
		err = fmt.Errorf("no SDK client for service %q", svc)
	}
	if err != nil {
		return nil, fmt.Errorf("target %s: %s SDK client: %w", t.Name, svc, err)
	}
	return c, nil
}

// azcoreStatus is the HTTP status and Azure error code of a failed SDK
// request.
func azcoreStatus(err error) (status int, code string, ok bool) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode, re.ErrorCode, true
	}
	return 0, "", false
}

// seekable wraps a payload as the rewindable body SDK uploads take.
func seekable(b []byte) io.ReadSeekCloser { return streaming.NopCloser(bytes.NewReader(b)) }

// The SDK parses most responses itself and does not say how many bytes
// they were, so the transport counts them: an op that reports the bytes it
// read puts a counter in its context (countBytes) and reads it afterwards.

type counterKey struct{}

// countBytes returns ctx carrying a counter of the response body bytes
// read by the requests made with it.
func countBytes(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, counterKey{}, n), n
}

// countingTransport is the SDK pipeline's transport: the benchmark's HTTP
// client, counting response bytes for the requests that ask for it.
type countingTransport struct{ http *http.Client }

func (t countingTransport) Do(req *http.Request) (*http.Response, error) {
	resp, err := t.http.Do(req)
	if n, ok := req.Context().Value(counterKey{}).(*atomic.Int64); ok && err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.n.Add(int64(k))
	return k, err
}
