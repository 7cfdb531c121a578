//go:build sdkbench

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

// The SDK versions of the blob scenarios in scenarios_blob.go.

// sdkWithContainer creates the scenario's container and returns its cleanup.
func sdkWithContainer(ctx context.Context, e *env) (*container.Client, func(context.Context), error) {
	cc := e.sdk.blob.NewContainerClient(e.prefix)
	if _, err := cc.Create(ctx, nil); err != nil {
		return nil, nil, err
	}
	return cc, func(ctx context.Context) { _, _ = cc.Delete(ctx, nil) }, nil
}

// sdkPutBlob uploads body as a block blob in one request, as putBlob does.
func sdkPutBlob(ctx context.Context, cc *container.Client, name string, body []byte, cond *blob.AccessConditions) error {
	_, err := cc.NewBlockBlobClient(name).Upload(ctx, seekable(body), &blockblob.UploadOptions{
		HTTPHeaders:      &blob.HTTPHeaders{BlobContentType: to.Ptr("application/octet-stream")},
		AccessConditions: cond,
	})
	return err
}

// sdkDownload reads a blob (or a range of it) to the end and returns its
// ETag and the bytes read.
func sdkDownload(ctx context.Context, b *blockblob.Client, rng blob.HTTPRange) (*azcore.ETag, int64, error) {
	resp, err := b.DownloadStream(ctx, &blob.DownloadStreamOptions{Range: rng})
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	return resp.ETag, n, err
}

func sdkPutBlobs(size int) setupFunc {
	return func(ctx context.Context, e *env) (op, func(context.Context), error) {
		cc, cleanup, err := sdkWithContainer(ctx, e)
		if err != nil {
			return nil, nil, err
		}
		data := payload(size)
		return func(ctx context.Context, w, seq int) (int64, error) {
			return int64(size), sdkPutBlob(ctx, cc, fmt.Sprintf("w%d-%d", w, seq), data, nil)
		}, cleanup, nil
	}
}

func sdkGetBlobs(size int) setupFunc {
	return func(ctx context.Context, e *env) (op, func(context.Context), error) {
		blobs := e.size(100, 10)
		cc, cleanup, err := sdkWithContainer(ctx, e)
		if err != nil {
			return nil, nil, err
		}
		data := payload(size)
		if err := parallel(ctx, blobs, 8, func(ctx context.Context, i int) error {
			return sdkPutBlob(ctx, cc, fmt.Sprintf("b%d", i), data, nil)
		}); err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
		clients := make([]*blockblob.Client, blobs)
		for i := range clients {
			clients[i] = cc.NewBlockBlobClient(fmt.Sprintf("b%d", i))
		}
		return func(ctx context.Context, w, seq int) (int64, error) {
			_, n, err := sdkDownload(ctx, clients[(w*7+seq)%blobs], blob.HTTPRange{})
			return n, err
		}, cleanup, nil
	}
}

// sdkUploadBlocks stages count copies of block, inFlight at a time, then
// commits them, as uploadBlocks does.
func sdkUploadBlocks(ctx context.Context, b *blockblob.Client, block []byte, count, inFlight int) error {
	ids := blockIDs(count)
	err := parallel(ctx, count, inFlight, func(ctx context.Context, i int) error {
		_, err := b.StageBlock(ctx, ids[i], seekable(block), nil)
		return err
	})
	if err != nil {
		return err
	}
	_, err = b.CommitBlockList(ctx, ids, nil)
	return err
}

func sdkUpload256(ctx context.Context, e *env) (op, func(context.Context), error) {
	cc, cleanup, err := sdkWithContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	block := payload(bigBlock(e))
	return func(ctx context.Context, w, seq int) (int64, error) {
		b := cc.NewBlockBlobClient(fmt.Sprintf("big-%d-%d", w, seq))
		return int64(bigBlocks * len(block)), sdkUploadBlocks(ctx, b, block, bigBlocks, bigInFlight)
	}, cleanup, nil
}

func sdkDownload256(ctx context.Context, e *env) (op, func(context.Context), error) {
	cc, cleanup, err := sdkWithContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	block := bigBlock(e)
	b := cc.NewBlockBlobClient("big")
	if err := sdkUploadBlocks(ctx, b, payload(block), bigBlocks, bigInFlight); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		var moved atomic.Int64
		err := parallel(ctx, bigBlocks, bigInFlight, func(ctx context.Context, i int) error {
			_, n, err := sdkDownload(ctx, b, blob.HTTPRange{Offset: int64(i * block), Count: int64(block)})
			moved.Add(n)
			return err
		})
		return moved.Load(), err
	}, cleanup, nil
}

func sdkCondUpdate(ctx context.Context, e *env) (op, func(context.Context), error) {
	const hot = 100
	cc, cleanup, err := sdkWithContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	data := payload(kib)
	if err := parallel(ctx, hot, 8, func(ctx context.Context, i int) error {
		return sdkPutBlob(ctx, cc, fmt.Sprintf("hot%d", i), data, nil)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		name := fmt.Sprintf("hot%d", (w*13+seq)%hot)
		etag, _, err := sdkDownload(ctx, cc.NewBlockBlobClient(name), blob.HTTPRange{})
		if err != nil {
			return 0, err
		}
		cond := &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: etag}}
		return int64(len(data)), sdkPutBlob(ctx, cc, name, data, cond)
	}, cleanup, nil
}

func sdkLeaseCycle(ctx context.Context, e *env) (op, func(context.Context), error) {
	cc, cleanup, err := sdkWithContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, e.workers, 8, func(ctx context.Context, i int) error {
		return sdkPutBlob(ctx, cc, fmt.Sprintf("l%d", i), payload(16), nil)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	// One lease client per worker, with the worker's fixed proposed id (see
	// leaseCycle for why it is fixed).
	leases := make([]*lease.BlobClient, e.workers)
	for w := range leases {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", w)
		if leases[w], err = lease.NewBlobClient(cc.NewBlockBlobClient(fmt.Sprintf("l%d", w)), &lease.BlobClientOptions{LeaseID: &id}); err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		l := leases[w]
		if _, err := l.AcquireLease(ctx, 15, nil); err != nil {
			return 0, err
		}
		if _, err := l.RenewLease(ctx, nil); err != nil {
			return 0, err
		}
		_, err := l.ReleaseLease(ctx, nil)
		return 0, err
	}, cleanup, nil
}

func sdkListBlobs(ctx context.Context, e *env) (op, func(context.Context), error) {
	n := e.opts.ListBlobs
	if n <= 0 {
		n = 100000
	}
	cc, cleanup, err := sdkWithContainer(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, n, 32, func(ctx context.Context, i int) error {
		return sdkPutBlob(ctx, cc, fmt.Sprintf("item-%07d", i), nil, nil)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	// Each op lists one page of 5,000, continuing from the worker's
	// previous page, as listBlobs does.
	markers := make([]*string, e.workers)
	return func(ctx context.Context, w, seq int) (int64, error) {
		ctx, read := countBytes(ctx)
		pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Marker: markers[w], MaxResults: to.Ptr[int32](5000)})
		page, err := pager.NextPage(ctx)
		if err != nil {
			return 0, err
		}
		markers[w] = page.NextMarker
		if page.NextMarker != nil && *page.NextMarker == "" {
			markers[w] = nil
		}
		if markers[w] == nil && (page.Segment == nil || len(page.Segment.BlobItems) == 0) {
			return 0, errors.New("list-blobs: empty listing")
		}
		return read.Load(), nil
	}, cleanup, nil
}
