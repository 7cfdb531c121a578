package linearize

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"
)

// lakeFiles is how many files the directory holds when the history
// starts.
const lakeFiles = 20

// checkLake records 8 Data Lake clients (spread over the given connection
// strings) renaming the directory of one filesystem between /a and /b,
// with and without conditions, creating a directory under either name,
// with creates also a file in it under the name they last saw it at,
// deleting a second directory the last listing showed, and listing the
// filesystem recursively; and checks the history against the lake model.
func checkLake(t *testing.T, connStrs []string, creates bool) {
	ctx := context.Background()
	name := "lake"
	if creates {
		name = "lakecreates"
	}
	initial, err := setUpLake(ctx, connStrs[0], name)
	if err != nil {
		t.Fatal(err)
	}
	steps := make([]stepFunc, clients)
	for id := range steps {
		fs, err := filesystem.NewClientFromConnectionString(connStrs[id%len(connStrs)], name, &filesystem.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		c := &lakeClient{fs: fs, id: id, rand: clientRand(id), stray: -1, creates: creates}
		c.etags[0] = initial[0].etag
		steps[id] = func(i int) (any, any, error) { return c.step(ctx, i) }
	}
	history := record(t, steps)
	check(t, lakeModel(initial), history, "directory renames, creates, deletes and listings", len(connStrs), lakeOutcome)
}

// setUpLake creates filesystem name and directory /a with lakeFiles
// files, and returns the model's first state.
func setUpLake(ctx context.Context, connStr, name string) (lakeState, error) {
	fs, err := filesystem.NewClientFromConnectionString(connStr, name, nil)
	if err != nil {
		return lakeState{}, err
	}
	if _, err := fs.Create(ctx, nil); err != nil {
		return lakeState{}, err
	}
	dir, err := fs.NewDirectoryClient(lakeNames[0]).Create(ctx, nil)
	if err != nil {
		return lakeState{}, err
	}
	initial := lakeState{{exists: true, etag: bareETag(string(*dir.ETag))}}
	for k := range lakeFiles {
		child := fmt.Sprintf("f%02d", k)
		if _, err := fs.NewFileClient(lakeNames[0]+"/"+child).Create(ctx, nil); err != nil {
			return lakeState{}, err
		}
		initial[0].children = withChild(initial[0].children, child)
	}
	return initial, nil
}

// lakeClient is one client and what it last saw: the name it believes
// the directory is at, the ETags of both names, and a directory a stale
// create made under the other name (-1 for none), which it deletes.
type lakeClient struct {
	fs    *filesystem.Client
	id    int
	rand  *rand.Rand
	at    int
	etags [2]string
	stray int
	// creates says whether the client creates files too.
	creates bool
}

// step does the client's i-th operation: four in ten a listing, one a
// directory create, two a file create when the client makes files, the
// rest a rename; but two in ten a delete of a stray directory when the
// last listing showed one, so that renames find the other name free.
func (c *lakeClient) step(ctx context.Context, i int) (lakeInput, lakeOutput, error) {
	switch r := c.rand.IntN(10); {
	case r < 2 && c.stray >= 0:
		return c.remove(ctx)
	case r < 4:
		return c.list(ctx)
	case r < 5:
		return c.touch(ctx)
	case r < 7 && c.creates:
		return c.create(ctx, i)
	}
	return c.rename(ctx)
}

// list reads the whole filesystem in one List Paths page: a paged
// listing is several reads, which the service need not make atomic
// together, so a continuation fails the client.
func (c *lakeClient) list(ctx context.Context) (lakeInput, lakeOutput, error) {
	in := lakeInput{op: lakeList}
	page, err := c.fs.NewListPathsPager(true, nil).NextPage(ctx)
	if code, err := refusal(err); err != nil || code != "" {
		return in, lakeOutput{code: code}, err
	}
	if page.Continuation != nil && *page.Continuation != "" {
		return in, lakeOutput{}, errors.New("the listing did not fit in one page")
	}
	paths := make([]lakePath, len(page.Paths))
	for i, p := range page.Paths {
		paths[i] = lakePath{name: deref(p.Name), dir: p.IsDirectory != nil && *p.IsDirectory, etag: deref(p.ETag)}
	}
	out := lakeOutput{}
	out.seen, out.stray = readListing(paths)
	c.learn(out.seen)
	return in, out, nil
}

// learn takes the directory to be the name with more files, and the
// other, when it exists too, to be a stray.
func (c *lakeClient) learn(seen lakeState) {
	c.etags = [2]string{seen[0].etag, seen[1].etag}
	c.at, c.stray = 0, -1
	if childCount(seen[1]) > childCount(seen[0]) {
		c.at = 1
	}
	if seen[1-c.at].exists {
		c.stray = 1 - c.at
	}
}

// childCount is how many files d holds.
func childCount(d lakeDir) int {
	if d.children == "" {
		return 0
	}
	return strings.Count(d.children, ",") + 1
}

// create makes a file under the name the client last saw the directory
// at.
func (c *lakeClient) create(ctx context.Context, i int) (lakeInput, lakeOutput, error) {
	in := lakeInput{op: lakeCreate, at: c.at, child: fmt.Sprintf("c%d-%d", c.id, i)}
	_, err := c.fs.NewFileClient(lakeNames[in.at]+"/"+in.child).Create(ctx, nil)
	code, err := refusal(err)
	return in, lakeOutput{code: code}, err
}

// touch creates a directory under either name: an empty directory where
// there was none, or a new ETag for the one there, which makes other
// clients' x-ms-source-if-match stale.
func (c *lakeClient) touch(ctx context.Context) (lakeInput, lakeOutput, error) {
	in := lakeInput{op: lakeTouch, at: c.rand.IntN(2)}
	resp, err := c.fs.NewDirectoryClient(lakeNames[in.at]).Create(ctx, nil)
	code, err := refusal(err)
	if err != nil || code != "" {
		return in, lakeOutput{code: code}, err
	}
	out := lakeOutput{etag: bareETag(string(deref(resp.ETag)))}
	c.etags[in.at] = out.etag
	return in, out, nil
}

// rename moves the directory from the name the client last saw it at
// (one time in four from the other name, onto it) to the other,
// unconditionally, on the source's last seen ETag, or only if the
// destination does not exist.
func (c *lakeClient) rename(ctx context.Context) (lakeInput, lakeOutput, error) {
	in := lakeInput{op: lakeRename, at: c.at, cond: lakeCond(c.rand.IntN(3))}
	if c.rand.IntN(4) == 0 {
		in.at = 1 - c.at
	}
	opts := &directory.RenameOptions{}
	switch in.cond {
	case lakeIfSourceMatch:
		in.etag = c.etags[in.at]
		etag := azcore.ETag(`"` + in.etag + `"`)
		opts.SourceAccessConditions = &directory.SourceAccessConditions{
			SourceModifiedAccessConditions: &directory.SourceModifiedAccessConditions{SourceIfMatch: &etag}}
	case lakeIfDestAbsent:
		anyETag := azcore.ETagAny
		opts.AccessConditions = &directory.AccessConditions{
			ModifiedAccessConditions: &directory.ModifiedAccessConditions{IfNoneMatch: &anyETag}}
	}
	resp, err := c.fs.NewDirectoryClient(lakeNames[in.at]).Rename(ctx, lakeNames[1-in.at], opts)
	code, err := refusal(err)
	if err != nil || code != "" {
		return in, lakeOutput{code: code}, err
	}
	out := lakeOutput{etag: bareETag(string(deref(resp.ETag)))}
	if in.at == c.at {
		c.at = 1 - in.at // the directory moved
	}
	c.etags[1-in.at] = out.etag
	return in, out, nil
}

// remove deletes, with everything in it, the stray directory the last
// listing showed, on the ETag it showed.
func (c *lakeClient) remove(ctx context.Context) (lakeInput, lakeOutput, error) {
	in := lakeInput{op: lakeRemove, at: c.stray, etag: c.etags[c.stray]}
	etag := azcore.ETag(`"` + in.etag + `"`)
	_, err := c.fs.NewDirectoryClient(lakeNames[in.at]).Delete(ctx, &directory.DeleteOptions{AccessConditions: &directory.AccessConditions{
		ModifiedAccessConditions: &directory.ModifiedAccessConditions{IfMatch: &etag}}})
	code, err := refusal(err)
	c.stray = -1
	return in, lakeOutput{code: code}, err
}

// refusal is the error code of a 4xx answer, which the model decides on;
// any other error is passed through.
func refusal(err error) (string, error) {
	if err == nil {
		return "", nil
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.StatusCode >= 400 && re.StatusCode < 500 && re.ErrorCode != "" {
		return re.ErrorCode, nil
	}
	return "", err
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
