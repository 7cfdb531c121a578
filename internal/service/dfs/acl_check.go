package dfs

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// pathQuestion is one ACL check a request asks: an operation on a path
// (the filesystem's root when Path is ""), with a rename's destination and
// a group change's new group.
type pathQuestion struct {
	op          posixacl.Operation
	path        target
	destination *target
	newGroup    string
}

// checkPathACL is the one access check of a request on a hierarchical
// namespace, for the dfs operations and the Blob ones alike: a caller the
// role decision leaves to the ACLs (auth.Identity.ACLSubjects) is granted
// the operation when the ACLs of every path questions names allow it to
// every subject ("Access control model in Azure Data Lake Storage", "How
// permissions are evaluated"), and otherwise answered 403
// AuthorizationPermissionMismatch (posixacl.Authorize). Nothing is
// granted on a flat account, or for an operation questions does not know
// (nil): only a role allows those, which Authorize then refuses.
//
// The request it returns asks the same questions again at the start of
// each of the operation's transactions, up to its write's
// (store.WithCheck): the ACLs that allowed it are the ones its write
// commits over, not ones another request changed in between.
func (s *Service) checkPathACL(r *http.Request, questions func() ([]pathQuestion, error)) (*http.Request, error) {
	id := request.Of(r).Identity
	if id == nil || len(id.ACLSubjects()) == 0 || !s.hnsAccount(r) {
		return r, nil
	}
	qs, err := questions()
	if err != nil || len(qs) == 0 {
		return r, err
	}
	account := request.Of(r).Account
	ask := func(tx store.Tx) error {
		now := s.now()
		for _, q := range qs {
			req, err := q.request(tx, account, now)
			if err != nil {
				return err
			}
			for _, p := range id.ACLSubjects() {
				if err := posixacl.Authorize(posixacl.Principal{ObjectID: p.ObjectID, Groups: p.Groups}, req); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := s.store.View(r.Context(), ask); err != nil {
		return r, err
	}
	id.GrantByACL()
	return r.WithContext(store.WithCheck(r.Context(), ask)), nil
}

// request loads what q's check reads: the nodes on the way to its path
// and its destination.
func (q pathQuestion) request(tx store.Tx, account string, now time.Time) (posixacl.Request, error) {
	req := posixacl.Request{Op: q.op, NewGroup: q.newGroup}
	var err error
	var dir bool
	req.Path, dir, err = loadTarget(tx, account, q.path, now, q.op == posixacl.DeleteRecursive)
	if err != nil {
		return req, err
	}
	if q.op == posixacl.DeleteRecursive && !dir {
		// recursive=true on a file removes the file alone.
		req.Op = posixacl.DeletePath
	}
	if q.destination != nil {
		if req.Destination, _, err = loadTarget(tx, account, *q.destination, now, false); err != nil {
			return req, err
		}
	}
	if req.Path.Self == nil && needsSelf(q.op) {
		// A path that is not there is the handler's to answer (404): the
		// caller need only be able to reach where it would be.
		req.Op = posixacl.GetStatus
	}
	return req, nil
}

// needsSelf reports whether op checks the path itself, which a missing
// path cannot be asked.
func needsSelf(op posixacl.Operation) bool {
	switch op {
	case posixacl.CreatePath, posixacl.DeletePath, posixacl.RenamePath:
		return false
	}
	return true
}

// loadTarget reads the nodes of t: the filesystem's root and each
// existing directory above the path (a missing one is created with the
// path, so the nearest existing ancestor is the parent the check asks
// for, as HDFS's mkdirs checks it), the path itself when it exists, and,
// with subtree, every directory below it. dir says whether the path is a
// directory.
func loadTarget(tx store.Tx, account string, t target, now time.Time, subtree bool) (out posixacl.Target, dir bool, err error) {
	c, _, err := blobdata.LoadContainer(tx, account, t.Filesystem)
	if err != nil {
		return out, false, err
	}
	root := nodeOf(c.RootAccess())
	if t.Path == "" {
		out.Self = &root
		return out, true, nil
	}
	out.Ancestors = []posixacl.Node{root}
	for _, name := range blobdata.Parents(t.Path) {
		n, _, err := loadNode(tx, account, t.Filesystem, name, now)
		if err != nil {
			return out, false, err
		}
		if n != nil {
			out.Ancestors = append(out.Ancestors, *n)
		}
	}
	if out.Self, dir, err = loadNode(tx, account, t.Filesystem, t.Path, now); err != nil || !dir || !subtree {
		return out, dir, err
	}
	out.Subtree, err = directoriesUnder(tx, account, t.Filesystem, t.Path)
	return out, dir, err
}

// loadNode reads one path's node, nil when it does not exist, and
// whether it is a directory.
func loadNode(tx store.Tx, account, filesystem, name string, now time.Time) (*posixacl.Node, bool, error) {
	b, err := blobdata.LoadLiveBlob(tx, account, filesystem, name, now)
	if err != nil || b == nil || !b.Committed {
		return nil, false, err
	}
	dir := b.IsDirectory()
	n := nodeOf(b.Access(dir))
	return &n, dir, nil
}

// directoriesUnder reads the nodes of the directories below dir.
func directoriesUnder(tx store.Tx, account, filesystem, dir string) ([]posixacl.Node, error) {
	var nodes []posixacl.Node
	var decodeErr error
	prefix := blobdata.NamePrefixKey(account, filesystem, dir+"/")
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		_, elem, err := blobdata.BlobNameFromKey(k)
		if err != nil || elem != blobdata.ElemBase {
			decodeErr = err
			return err == nil
		}
		b, err := blobdata.DecodeBlobProperties(v)
		if err != nil {
			decodeErr = err
			return false
		}
		if b.Committed && b.IsDirectory() {
			nodes = append(nodes, nodeOf(b.Access(true)))
		}
		return true
	})
	if err == nil {
		err = decodeErr
	}
	return nodes, err
}

// nodeOf is a path's access control as the check reads it.
func nodeOf(p blobdata.PosixState) posixacl.Node {
	return posixacl.Node{Owner: p.Owner, Group: p.Group, ACL: p.ACL, Sticky: p.Sticky}
}
