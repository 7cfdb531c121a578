package file_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// Names holding a character XML 1.0 cannot carry (U+FFFE, U+FFFF) are listed
// percent-encoded in <Name Encoded="true">, as the List Directories and Files
// REST page (Response body) allows, so they come back as created and not as
// U+FFFD. The cases are azure-sdk-for-go's recorded azfile directory tests
// TestListFileDirEncoded, TestListFileDirEncodedContinuationToken and
// TestListFileDirEncodedPrefix (sdk/storage/azfile/directory/client_test.go).
func TestListNamesXMLCannotCarry(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "encoded")
	root := sh.NewRootDirectoryClient()
	const dirName, file0, file1 = "directory\uFFFF", "file0\uFFFE", "file1\uFFFE"
	_, err := root.NewSubdirectoryClient(dirName).Create(ctx, nil)
	must(t, err)
	for _, name := range []string{file0, file1} {
		_, err := root.NewFileClient(name).Create(ctx, 2048, nil)
		must(t, err)
	}

	// One entry a page: names and continuation survive the round trip.
	var got []string
	pager := root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{MaxResults: to.Ptr(int32(1))})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err)
		for _, d := range page.Segment.Directories {
			got = append(got, "d:"+*d.Name)
		}
		for _, f := range page.Segment.Files {
			got = append(got, "f:"+*f.Name)
		}
	}
	if want := []string{"d:" + dirName, "f:" + file0, "f:" + file1}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("listed %q, want %q", got, want)
	}

	// The echoed prefix is encoded the same way.
	page, err := root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{Prefix: to.Ptr(dirName)}).NextPage(ctx)
	must(t, err)
	if page.Prefix == nil || *page.Prefix != dirName || len(page.Segment.Directories) != 1 || *page.Segment.Directories[0].Name != dirName ||
		len(page.Segment.Files) != 0 {
		t.Errorf("prefix listing: prefix %q, %d directories, %d files", deref(page.Prefix), len(page.Segment.Directories), len(page.Segment.Files))
	}

	// On the wire: the UTF-8 bytes percent-encoded, plain names left plain.
	_, err = root.NewFileClient("plain").Create(ctx, 1, nil)
	must(t, err)
	resp := rawRequest(t, in, http.MethodGet, "encoded", "restype=directory&comp=list", nil, "")
	body, err := io.ReadAll(resp.Body)
	must(t, err)
	for _, want := range []string{`<Name Encoded="true">directory%EF%BF%BF</Name>`, `<Name Encoded="true">file0%EF%BF%BE</Name>`,
		`<Name>plain</Name>`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("listing lacks %s:\n%s", want, body)
		}
	}
	if strings.ContainsRune(string(body), '\uFFFD') || strings.ContainsRune(string(body), '\uFFFE') {
		t.Errorf("listing carries a raw or replaced character:\n%s", body)
	}
}
