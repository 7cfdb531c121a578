package dfs

import (
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// listingGuard holds a listing to what its caller may list one directory
// at a time. A request's own check (dfsQuestions, blobQuestions) allows
// the directory listed, its base; a recursive listing (List Paths with
// recursive=true, List Blobs without a delimiter or with one other than
// "/") also answers the contents of the directories below it, and each
// of those needs what listing it needs: read and execute ("Access
// control model in Azure Data Lake Storage", the table of operations,
// "List /Oregon/"). An entry
// of a directory below the base the caller may not list refuses the whole
// request with 403 AuthorizationPermissionMismatch, never a page with the
// entry left out, which would tell it apart from one without it.
//
// The guard is asked about each entry as the listing scans it, in name
// order, before the entry (or a continuation that names it) is answered,
// so a directory's entry comes before its contents and its verdict is
// taken from the record the scan has read; only a page resumed inside a
// directory reads that directory's node. A directory that holds nothing
// the page answers is not asked for.
type listingGuard struct {
	account, filesystem string
	base                string
	subjects            []posixacl.Principal
	now                 time.Time
	// listable is each directory below base met so far: whether every
	// subject may list it and every directory between it and base.
	listable map[string]bool
}

// newListingGuard is the guard of a listing of base in filesystem, nil
// when r's caller is not one the ACLs decide (Shared Key, an account or
// service SAS, a data owner role) or its account has no hierarchical namespace: those
// listings check nothing more.
func (s *Service) newListingGuard(r *http.Request, filesystem, base string) *listingGuard {
	id := request.Of(r).Identity
	if id == nil || len(id.ACLSubjects()) == 0 || !s.hnsAccount(r) {
		return nil
	}
	g := &listingGuard{account: request.Of(r).Account, filesystem: filesystem, base: base,
		now: s.now(), listable: map[string]bool{}}
	for _, p := range id.ACLSubjects() {
		g.subjects = append(g.subjects, posixacl.Principal{ObjectID: p.ObjectID, Groups: p.Groups})
	}
	return g
}

// entry checks the listing's next entry, name, whose record is b (nil
// for a name that stands for others, a BlobPrefix): the directory that
// holds it must be listable.
func (g *listingGuard) entry(tx store.Tx, name string, b *blobdata.Blob) error {
	if g == nil {
		return nil
	}
	ok, err := g.mayList(tx, parentDirectory(name))
	if err != nil {
		return err
	}
	if !ok {
		return azerr.New(azerr.AuthorizationPermissionMismatch)
	}
	if b != nil && b.IsDirectory() && g.below(name) {
		// A name listed in several states (versions, deleted ones) is
		// listable only when each of them allows it.
		prior, seen := g.listable[name]
		g.listable[name] = (prior || !seen) && g.allowed(nodeOf(b.Access(true)))
	}
	return nil
}

// mayList reports whether dir, the base or a directory below it, may be
// listed, reading the node of one the scan has not met (a page resumed
// inside it). One that does not exist cannot be shown to allow it.
func (g *listingGuard) mayList(tx store.Tx, dir string) (bool, error) {
	if !g.below(dir) {
		return true, nil
	}
	if ok, seen := g.listable[dir]; seen {
		return ok, nil
	}
	ok, err := g.mayList(tx, parentDirectory(dir))
	if err != nil || !ok {
		return false, err
	}
	n, isDir, err := loadNode(tx, g.account, g.filesystem, dir, g.now)
	if err != nil {
		return false, err
	}
	ok = n != nil && isDir && g.allowed(*n)
	g.listable[dir] = ok
	return ok, nil
}

// allowed reports whether every subject may list the directory n.
func (g *listingGuard) allowed(n posixacl.Node) bool {
	for _, p := range g.subjects {
		if !p.Allowed(n, posixacl.Read|posixacl.Execute) {
			return false
		}
	}
	return true
}

// below reports whether name is under the base directory.
func (g *listingGuard) below(name string) bool {
	if g.base == "" {
		return name != ""
	}
	return strings.HasPrefix(name, g.base+"/")
}

// parentDirectory is the directory that holds name, "" for the root.
func parentDirectory(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ""
	}
	return name[:i]
}
