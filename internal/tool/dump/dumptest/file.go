package dumptest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// What populateFiles writes: a share with metadata, a directory, and in it
// a sparse file of two written ranges with a hole between them (the hole
// reads as zeros and holds no extent).
const (
	shareName = "reports"
	dirName   = "2024"
	fileName  = "q1.bin"
	fileSize  = 200 << 10
	rangeSize = 64 << 10
	// The second range starts past a hole of one range.
	secondRangeAt = 2 * rangeSize
)

// fileContent is what the file reads as once populated.
func fileContent() []byte {
	data := make([]byte, fileSize)
	copy(data, content(30, rangeSize))
	copy(data[secondRangeAt:], content(31, rangeSize))
	return data
}

func populateFiles(t testing.TB, in *lazulitest.Instance) {
	t.Helper()
	ctx := context.Background()
	sh := fileClient(t, in).NewShareClient(shareName)
	must(t, "create share", err2(sh.Create(ctx, &share.CreateOptions{Metadata: map[string]*string{"team": to.Ptr("finance")}})))
	dir := sh.NewDirectoryClient(dirName)
	must(t, "create directory", err2(dir.Create(ctx, nil)))
	f := dir.NewFileClient(fileName)
	must(t, "create file", err2(f.Create(ctx, fileSize, nil)))
	for i, offset := range []int64{0, secondRangeAt} {
		_, err := f.UploadRange(ctx, offset, streaming.NopCloser(bytes.NewReader(content(uint64(30+i), rangeSize))), nil)
		must(t, "upload range", err)
	}
}

func checkFiles(t testing.TB, in *lazulitest.Instance) {
	t.Helper()
	ctx := context.Background()
	sh := fileClient(t, in).NewShareClient(shareName)
	props, err := sh.GetProperties(ctx, nil)
	must(t, "get share properties", err)
	found := false
	for k, v := range props.Metadata {
		found = found || strings.EqualFold(k, "team") && v != nil && *v == "finance"
	}
	if !found {
		t.Errorf("share metadata %v, want team=finance", props.Metadata)
	}
	f := sh.NewDirectoryClient(dirName).NewFileClient(fileName)
	resp, err := f.DownloadStream(ctx, nil)
	must(t, "download file", err)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	must(t, "read file", err)
	if !bytes.Equal(got, fileContent()) {
		t.Errorf("file %s/%s: %d bytes differ from the %d written", dirName, fileName, len(got), fileSize)
	}
	ranges, err := f.GetRangeList(ctx, nil)
	must(t, "get range list", err)
	if len(ranges.Ranges) != 2 || *ranges.Ranges[0].Start != 0 || *ranges.Ranges[1].Start != secondRangeAt {
		t.Errorf("file ranges %+v, want the two written", ranges.Ranges)
	}
}

func fileClient(t testing.TB, in *lazulitest.Instance) *service.Client {
	c, err := service.NewClientFromConnectionString(in.ConnectionString, nil)
	must(t, "file client", err)
	return c
}
