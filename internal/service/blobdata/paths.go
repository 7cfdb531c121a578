package blobdata

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
)

// Paths. The Data Lake (dfs) API sees a container's blobs as a tree of
// paths separated by "/". A directory is a zero-length block blob whose
// metadata says hdi_isfolder=true, as Azure shows directories through the
// Blob API; the paths under directory d are the blobs named d/..., which
// one prefix scan finds in name order. The tree transactions here (this
// file, paths_move.go, paths_delete.go) create a path's missing parents,
// and move or remove a directory with everything under it, in the
// caller's store transaction.

// DirectoryFlag is the metadata name whose value "true" marks a directory.
const DirectoryFlag = "hdi_isfolder"

// ErrParentIsFile is returned when a path's parent exists and is a file,
// which can have no paths under it.
var ErrParentIsFile = errors.New("blobdata: a parent of the path is a file")

// IsDirectory reports whether the blob is a directory of the dfs API. The
// flag's name is matched without case, as Azure reads metadata names.
func (b *Blob) IsDirectory() bool {
	for _, p := range b.Metadata {
		if strings.EqualFold(p.Name, DirectoryFlag) {
			return strings.EqualFold(p.Value, "true")
		}
	}
	return false
}

// Parents returns the names of the directories above name, outermost
// first: "a/b/c" gives "a" and "a/b".
func Parents(name string) []string {
	var out []string
	for i := 0; i < len(name); i++ {
		if name[i] == '/' && i > 0 {
			out = append(out, name[:i])
		}
	}
	return out
}

// NewDirectory is the record of a directory created at now with metadata
// md (the directory flag is added).
func NewDirectory(now time.Time, md metadata.Set) *Blob {
	md = append(metadata.Set{{Name: DirectoryFlag, Value: "true"}}, md...)
	b := &Blob{Type: BlockBlob, Committed: true, ETag: etag.Next(now, 0), Created: now, Metadata: md}
	b.SetSegments(nil)
	return b
}

// CreateParents creates the directories above name that do not exist, as
// Path Create does on an account with a hierarchical namespace; a parent
// that exists as a file is ErrParentIsFile. A new directory is a write
// that creates a blob, so it gets a version ID when versioning is on, and
// creator owns it (paths_owner.go). It returns how many directories it
// created.
func CreateParents(tx store.Tx, account, container, name string, now time.Time, versioningDefault bool, creator posixacl.Principal) (int, error) {
	parents := Parents(name)
	if len(parents) == 0 {
		return 0, nil
	}
	c, _, err := LoadContainer(tx, account, container)
	if err != nil {
		return 0, err
	}
	created, above := 0, c.RootAccess()
	for _, parent := range parents {
		b, err := LoadBlobForWrite(tx, account, container, parent, now)
		if err != nil {
			return created, err
		}
		if b != nil && b.Committed {
			if !b.IsDirectory() {
				return created, ErrParentIsFile
			}
			above = b.Access(true)
			continue
		}
		hist, err := BeginHistory(tx, account, container, parent, nil, WriteReplace, now, versioningDefault)
		if err != nil {
			return created, err
		}
		dir := NewDirectory(now, nil)
		if b != nil {
			// A placeholder for uncommitted blocks keeps them.
			dir.HasUncommitted, dir.BlockIDLen = b.HasUncommitted, b.BlockIDLen
		}
		dir.Posix = NewPosixState(above, posixacl.NewPath{Directory: true}, creator)
		above = dir.Posix
		if err := hist.Finish(tx, dir, RefDelta{}); err != nil {
			return created, err
		}
		if err := SaveBlob(tx, account, container, parent, dir); err != nil {
			return created, err
		}
		created++
	}
	return created, nil
}

// HasChildren reports whether any blob (committed or a placeholder) is
// named under dir, that is dir/... Only base records count: a path under
// dir that was deleted and is kept as a soft-deleted state or a previous
// version is not a child, so it does not keep its directory from being
// deleted (Delete Blob, Path - Delete).
func HasChildren(tx store.Tx, account, container, dir string) (bool, error) {
	prefix := NamePrefixKey(account, container, dir+"/")
	found := false
	var keyErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, _ []byte) bool {
		_, elem, err := BlobNameFromKey(k)
		if err != nil {
			keyErr = err
			return false
		}
		found = elem == ElemBase
		return !found
	})
	return found, errors.Join(err, keyErr)
}

// treeRecord is one stored record of a blob under a directory.
type treeRecord struct {
	key   []byte
	name  string
	elem  string
	value []byte
}

// recordsUnder lists the records (every state) of the blob named name
// and, when tree is set, of every blob under it, in key order.
func recordsUnder(tx store.Tx, account, container, name string, tree bool) ([]treeRecord, error) {
	var out []treeRecord
	collect := func(start, end []byte) error {
		var keyErr error
		err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
			rd := store.ReadKey(k, store.SpaceBlob)
			rd.Str()
			rd.Str()
			n, elem := rd.Str(), rd.Str()
			if keyErr = rd.Err(); keyErr != nil {
				return false
			}
			// The store may reuse k and v once fn returns.
			out = append(out, treeRecord{key: bytes.Clone(k), name: n, elem: elem, value: bytes.Clone(v)})
			return true
		})
		return errors.Join(err, keyErr)
	}
	if err := collect(StateKeys(account, container, name)); err != nil {
		return nil, err
	}
	if tree {
		prefix := NamePrefixKey(account, container, name+"/")
		if err := collect(prefix, store.PrefixEnd(prefix)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
