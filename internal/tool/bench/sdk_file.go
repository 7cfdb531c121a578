//go:build sdkbench

package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

// The SDK versions of the file scenarios in scenarios_file.go.

func sdkWithShare(ctx context.Context, e *env) (*share.Client, func(context.Context), error) {
	sc := e.sdk.file.NewShareClient(e.prefix)
	if _, err := sc.Create(ctx, nil); err != nil {
		return nil, nil, err
	}
	return sc, func(ctx context.Context) {
		_, _ = sc.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)})
	}, nil
}

// sdkCreateFile creates an empty file of size bytes in the share's root.
func sdkCreateFile(ctx context.Context, sc *share.Client, name string, size int) (*file.Client, error) {
	f := sc.NewRootDirectoryClient().NewFileClient(name)
	_, err := f.Create(ctx, int64(size), nil)
	return f, err
}

func sdkFileWrite(ctx context.Context, e *env) (op, func(context.Context), error) {
	sc, cleanup, err := sdkWithShare(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	files := make([]*file.Client, e.workers)
	for w := range files {
		if files[w], err = sdkCreateFile(ctx, sc, fmt.Sprintf("f%d", w), mib); err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
	}
	data := payload(mib)
	return func(ctx context.Context, w, seq int) (int64, error) {
		_, err := files[w].UploadRange(ctx, 0, seekable(data), nil)
		return mib, err
	}, cleanup, nil
}

func sdkFileRead(ctx context.Context, e *env) (op, func(context.Context), error) {
	sc, cleanup, err := sdkWithShare(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	f, err := sdkCreateFile(ctx, sc, "read", mib)
	if err == nil {
		_, err = f.UploadRange(ctx, 0, seekable(payload(mib)), nil)
	}
	if err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		resp, err := f.DownloadStream(ctx, nil)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return io.Copy(io.Discard, resp.Body)
	}, cleanup, nil
}
