package file_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// onOtherPort rewrites a URL of this server's Blob service to another port
// of the same host, which the File service takes for a blob source.
func onOtherPort(t *testing.T, blobURL, otherAddr string) string {
	t.Helper()
	u, err := url.Parse(blobURL)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(otherAddr)
	u.Host = u.Hostname() + ":" + port
	return u.String()
}

// TestFileCopySourceHosts: the File service reads blob sources through the
// copy-source host policy (--copySourceAllow), as the Blob service does.
// This server's own Blob listener is always allowed; another service on
// the same host is not contacted at all under a list that does not name
// it, and an unreachable source is 502 CannotVerifyCopySource, never 500.
func TestFileCopySourceHosts(t *testing.T) {
	var contacted atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contacted.Add(1)
		_, _ = w.Write([]byte("not a blob"))
	}))
	defer other.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	in, svc := start(t, lazulitest.Options{InMemory: true,
		Configure: func(cfg *config.Config) { cfg.CopySourceAllow = []string{"files.example.com"} }})
	cred, err := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	must(t, err)
	blobs, err := azblob.NewClientWithSharedKeyCredential(in.BlobURL, cred, nil)
	must(t, err)
	_, err = blobs.CreateContainer(ctx, "srcs", nil)
	must(t, err)
	_, err = blobs.UploadBuffer(ctx, "srcs", "b.txt", []byte("from a blob"), nil)
	must(t, err)
	blobURL := strings.TrimSuffix(in.BlobURL, "/") + "/srcs/b.txt"
	dst := newShare(t, svc, "guarded").NewRootDirectoryClient().NewFileClient("copy.txt")

	// This server's own Blob service: allowed whatever the list says.
	_, err = dst.StartCopyFromURL(ctx, blobURL, nil)
	must(t, err)
	if got := download(t, dst); got != "from a blob" {
		t.Fatalf("copy from this server's blob reads %q", got)
	}
	// Another service on the same host: refused before any connection.
	_, err = dst.StartCopyFromURL(ctx, onOtherPort(t, blobURL, other.Listener.Addr().String()), nil)
	wantCode(t, err, http.StatusForbidden, "CannotVerifyCopySource")
	if n := contacted.Load(); n != 0 {
		t.Fatalf("the refused source was contacted %d times", n)
	}

	// A local emulator's default policy allows the host: an unreachable
	// source is the upstream's failure, 502.
	in2, svc2 := start(t, lazulitest.Options{InMemory: true})
	dst2 := newShare(t, svc2, "open").NewRootDirectoryClient().NewFileClient("copy.txt")
	_, err = dst2.StartCopyFromURL(ctx, onOtherPort(t, strings.TrimSuffix(in2.BlobURL, "/")+"/srcs/b.txt", closedAddr), nil)
	wantCode(t, err, http.StatusBadGateway, "CannotVerifyCopySource")
}
