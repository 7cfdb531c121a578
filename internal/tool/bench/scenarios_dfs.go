package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// dfsScenarios measure the Data Lake (dfs) API's tree operations over a
// directory of Options.ListBlobs files: they need an account with a
// hierarchical namespace, where a directory's rename moves every path
// under it and a listing walks the tree, and are skipped elsewhere.
func dfsScenarios() []scenario {
	return []scenario{
		// One rename at a time: two would race for the same tree.
		{name: "dfs-rename-tree", svc: auth.Blob, workers: 1, hns: true, setup: dfsRenameTree},
		{name: "dfs-list-paths", svc: auth.Blob, hns: true, setup: dfsListPaths},
		// A delete leaves nothing to delete again: one, timed.
		{name: "dfs-delete-tree", svc: auth.Blob, workers: 1, hns: true, once: true, setup: dfsDeleteTree},
	}
}

// NeedHierarchicalNamespace says whether any of the named scenarios needs
// an account with a hierarchical namespace, so that a server the
// benchmark starts can be given one for them alone.
func NeedHierarchicalNamespace(names []string) bool {
	for _, name := range names {
		if s, ok := scenarioByName(name); ok && s.hns {
			return true
		}
	}
	return false
}

// filesPerDirectory is how many files share each subdirectory of the dfs
// scenarios' tree.
const filesPerDirectory = 1000

// dfsTree is a filesystem holding one directory, top, with the files of
// the dfs scenarios under its subdirectories.
type dfsTree struct {
	filesystem, top string
	files, dirs     int
}

// paths is how many paths the tree holds: top, its subdirectories and
// their files.
func (t dfsTree) paths() int { return 1 + t.dirs + t.files }

// withDFSTree creates a container and Options.ListBlobs files in it named
// top/dNNN/fNNNNNNN, filesPerDirectory under each subdirectory, with Put
// Blob: on a hierarchical namespace the write creates the missing parent
// directories ("Blob Storage APIs on accounts with a hierarchical
// namespace").
func withDFSTree(ctx context.Context, e *env, top string) (dfsTree, func(context.Context), error) {
	n := e.opts.ListBlobs
	if n <= 0 {
		n = 100000
	}
	container, cleanup, err := withContainer(ctx, e)
	if err != nil {
		return dfsTree{}, nil, err
	}
	tree := dfsTree{filesystem: container, top: top, files: n, dirs: (n + filesPerDirectory - 1) / filesPerDirectory}
	if err := parallel(ctx, n, 32, func(ctx context.Context, i int) error {
		_, err := putBlob(ctx, e.c, container, fmt.Sprintf("%s/d%03d/f%07d", top, i/filesPerDirectory, i), nil, nil)
		return err
	}); err != nil {
		cleanup(ctx)
		return dfsTree{}, nil, err
	}
	return tree, cleanup, nil
}

// hasHierarchicalNamespace asks the target's Get Account Information
// whether the account has a hierarchical namespace (x-ms-is-hns-enabled,
// Azure REST "Get Account Information"). A target that does not answer
// the header (Azurite, the null server) has none.
func hasHierarchicalNamespace(ctx context.Context, c *client) (bool, error) {
	q := url.Values{"restype": {"account"}, "comp": {"properties"}}
	r, err := c.do(ctx, blobCall("GET", "/", q, nil, nil))
	if err != nil {
		var se *statusError
		if errors.As(err, &se) {
			return false, nil
		}
		return false, err
	}
	return r.header.Get("X-Ms-Is-Hns-Enabled") == "true", nil
}

// renameDirectory renames directory from to to in filesystem: Path -
// Create with x-ms-rename-source and mode=legacy, which on a hierarchical
// namespace moves the directory and everything under it at once.
func renameDirectory(ctx context.Context, c *client, filesystem, from, to string) error {
	h := http.Header{"X-Ms-Rename-Source": {"/" + filesystem + "/" + from}}
	_, err := c.do(ctx, blobCall("PUT", "/"+filesystem+"/"+to, url.Values{"mode": {"legacy"}}, h, nil))
	return err
}

// dfsRenameTree renames the tree's top directory between two names, each
// operation moving every path under it.
func dfsRenameTree(ctx context.Context, e *env) (op, func(context.Context), error) {
	names := [2]string{"tree-a", "tree-b"}
	tree, cleanup, err := withDFSTree(ctx, e, names[0])
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	current := 0
	return func(ctx context.Context, w, seq int) (int64, error) {
		mu.Lock()
		defer mu.Unlock()
		if err := renameDirectory(ctx, e.c, tree.filesystem, names[current], names[1-current]); err != nil {
			return 0, err
		}
		current = 1 - current
		return 0, nil
	}, cleanup, nil
}

// dfsListPaths lists the whole filesystem recursively to its end, pages
// of up to 5,000 paths followed with x-ms-continuation, and checks that
// it saw every path.
func dfsListPaths(ctx context.Context, e *env) (op, func(context.Context), error) {
	tree, cleanup, err := withDFSTree(ctx, e, "tree")
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		n, moved, err := listPaths(ctx, e.c, tree.filesystem, "", 5000)
		if err == nil && n != tree.paths() {
			err = fmt.Errorf("dfs-list-paths: listed %d paths, want %d", n, tree.paths())
		}
		return moved, err
	}, cleanup, nil
}

// dfsDeleteTree deletes the tree's top directory recursively, following
// x-ms-continuation until the server has removed every path (Azure REST
// "Path - Delete": a large directory is deleted over several requests).
func dfsDeleteTree(ctx context.Context, e *env) (op, func(context.Context), error) {
	tree, cleanup, err := withDFSTree(ctx, e, "tree")
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return 0, deleteDirectory(ctx, e.c, tree.filesystem, tree.top)
	}, cleanup, nil
}

// deleteDirectory deletes directory and everything under it, resending
// Path - Delete with each x-ms-continuation it answers.
func deleteDirectory(ctx context.Context, c *client, filesystem, directory string) error {
	q := url.Values{"recursive": {"true"}}
	for page := 0; page < maxListPages; page++ {
		r, err := c.do(ctx, blobCall("DELETE", "/"+filesystem+"/"+directory, q, nil, nil))
		if err != nil {
			return err
		}
		next := r.header.Get("X-Ms-Continuation")
		if next == "" {
			return nil
		}
		q.Set("continuation", next)
	}
	return fmt.Errorf("path delete: more than %d continuations", maxListPages)
}

// maxListPages bounds a listing's pages and a delete's requests, against
// a server whose continuation never ends.
const maxListPages = 100000

// listPaths runs List Paths recursively over filesystem (under directory,
// unless empty) and its continuations to the end, and returns the paths
// listed and the bytes read.
func listPaths(ctx context.Context, c *client, filesystem, directory string, pageSize int) (int, int64, error) {
	q := url.Values{"resource": {"filesystem"}, "recursive": {"true"}, "maxResults": {fmt.Sprint(pageSize)}}
	if directory != "" {
		q.Set("directory", directory)
	}
	var listed int
	var moved int64
	for page := 0; page < maxListPages; page++ {
		r, err := c.do(ctx, call{svc: auth.Blob, method: "GET", path: "/" + filesystem, query: q, sink: keepBody})
		if err != nil {
			return listed, moved, err
		}
		moved += r.bytes
		var answer struct {
			Paths []json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(r.body, &answer); err != nil {
			return listed, moved, fmt.Errorf("list paths answer: %w", err)
		}
		listed += len(answer.Paths)
		next := r.header.Get("X-Ms-Continuation")
		if next == "" {
			return listed, moved, nil
		}
		q.Set("continuation", next)
	}
	return listed, moved, fmt.Errorf("list paths: more than %d pages", maxListPages)
}
