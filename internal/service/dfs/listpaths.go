package dfs

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// pathEntry is one path of a List Paths answer. Numbers and flags are
// strings, as the service writes them (the SDKs parse "contentLength" and
// "isDirectory" from strings); isDirectory is left out for files.
type pathEntry struct {
	Name          string `json:"name"`
	IsDirectory   string `json:"isDirectory,omitempty"`
	ContentLength string `json:"contentLength"`
	ETag          string `json:"etag"`
	LastModified  string `json:"lastModified"`
	CreationTime  string `json:"creationTime"`
	ExpiryTime    string `json:"expiryTime,omitempty"`
	Owner         string `json:"owner,omitempty"`
	Group         string `json:"group,omitempty"`
	Permissions   string `json:"permissions,omitempty"`
	// EncryptionContext is spelled as the service spells it.
	EncryptionContext string `json:"EncryptionContext,omitempty"`
}

// listArgs are List Paths' parsed query.
type listArgs struct {
	dir       string // the directory listed, "" for the filesystem's root
	recursive bool
	// upn lists owners by user principal name where one is known.
	upn   bool
	limit int
	from  string // the name the page starts at
}

func parseList(r *http.Request) (listArgs, error) {
	q := r.URL.Query()
	var a listArgs
	var err error
	if _, ok := q["recursive"]; !ok {
		return a, azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "recursive")
	}
	if a.recursive, err = optionalBool(q.Get("recursive"), "recursive"); err != nil {
		return a, err
	}
	if a.upn, err = queryBool(r, "upn"); err != nil {
		return a, err
	}
	if a.limit, err = pageSize(q.Get("maxResults")); err != nil {
		return a, err
	}
	if a.from, err = continuationName(q.Get("continuation")); err != nil {
		return a, err
	}
	a.dir = strings.Trim(q.Get("directory"), "/")
	return a, nil
}

// listPaths is Path - List (GET /{filesystem}?resource=filesystem): the
// paths under directory (the root when absent), every one when
// recursive=true and the directory's own children otherwise, maxResults
// at a time in name order, the next page's start in x-ms-continuation.
// A directory is an entry of its own; on a flat account a name's
// "directories" that are no blob of their own are listed too when not
// recursive, as the names' first segment. With upn=true an owner is
// listed by the name a Bearer token told for it (upn.go). A caller the
// ACLs decide is answered no entry of a directory it could not list
// itself (acl_listing.go).
func (s *Service) listPaths(w http.ResponseWriter, r *http.Request) error {
	a, err := parseList(r)
	if err != nil {
		return err
	}
	t, account := targetOf(r), request.Of(r).Account
	hns := s.hnsAccount(r)
	var entries []pathEntry
	next := ""
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		if err := existingFilesystem(tx, account, t.Filesystem); err != nil {
			return err
		}
		now := s.now()
		if a.dir != "" {
			d, err := blobdata.LoadLiveBlob(tx, account, t.Filesystem, a.dir, now)
			if err != nil {
				return err
			}
			if hns && (d == nil || !d.Committed || !d.IsDirectory()) {
				return azerr.New(azerr.PathNotFound)
			}
		}
		l := lister{tx: tx, account: account, filesystem: t.Filesystem, args: a, hns: hns, now: now,
			guard: s.newListingGuard(r, t.Filesystem, a.dir)}
		if entries, next, err = l.run(); err != nil || !a.upn {
			return err
		}
		return nameOwners(newPrincipalNames(tx, account), entries)
	})
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []pathEntry{}
	}
	return writeJSON(w, next, struct {
		Paths []pathEntry `json:"paths"`
	}{entries})
}

// lister walks one page of List Paths.
type lister struct {
	tx                  store.Tx
	account, filesystem string
	args                listArgs
	hns                 bool
	now                 time.Time
	// guard refuses a page answering what the caller may not list.
	guard *listingGuard

	prefix  string
	entries []pathEntry
	next    string
	// lastDir is the last directory entry written, so that a flat
	// account's implied directory is listed once.
	lastDir string
}

// run scans the names under the prefix from the page's start, skipping
// the subtrees of a non-recursive listing, until the page is full.
func (l *lister) run() ([]pathEntry, string, error) {
	if l.args.dir != "" {
		l.prefix = l.args.dir + "/"
	}
	prefixKey := blobdata.NamePrefixKey(l.account, l.filesystem, l.prefix)
	end := store.PrefixEnd(prefixKey)
	start := prefixKey
	if l.args.from > l.prefix {
		start = blobdata.RecordKey(l.account, l.filesystem, l.args.from, blobdata.ElemBase)
	}
	for start != nil && l.next == "" {
		var resume []byte
		var scanErr error
		err := l.tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
			resume, scanErr = l.visit(k, v)
			return scanErr == nil && resume == nil && l.next == ""
		})
		if err != nil || scanErr != nil {
			return nil, "", firstError(err, scanErr)
		}
		start = resume
	}
	return l.entries, l.next, nil
}

// visit lists the record at k when it is a live base blob, and returns
// the key to resume at when the rest of a subtree is to be skipped.
func (l *lister) visit(k, v []byte) (resume []byte, err error) {
	name, elem, err := blobdata.BlobNameFromKey(k)
	if err != nil || elem != blobdata.ElemBase {
		return nil, err
	}
	rest := name[len(l.prefix):]
	if i := strings.IndexByte(rest, '/'); i >= 0 && !l.args.recursive {
		// A name below a child directory: on a flat account the
		// directory is listed once from it; then its subtree is skipped.
		child := l.prefix + rest[:i]
		if !l.hns && child != l.lastDir {
			l.add(pathEntry{Name: child, IsDirectory: "true", ContentLength: "0"}, child)
		}
		subtree := blobdata.NamePrefixKey(l.account, l.filesystem, child+"/")
		return store.PrefixEnd(subtree), nil
	}
	b, err := blobdata.DecodeBlobProperties(v)
	if err != nil || !b.Committed || b.ExpiredAt(l.now) {
		return nil, err
	}
	if err := l.guard.entry(l.tx, name, b); err != nil {
		return nil, err
	}
	l.add(l.entry(name, b), name)
	return nil, nil
}

// add appends e to the page, or ends the page at it when it is full.
func (l *lister) add(e pathEntry, name string) {
	if l.next != "" {
		return
	}
	if len(l.entries) == l.args.limit {
		l.next = name
		return
	}
	if e.IsDirectory != "" {
		l.lastDir = e.Name
	}
	l.entries = append(l.entries, e)
}

// entry is the listing's entry of the blob name.
func (l *lister) entry(name string, b *blobdata.Blob) pathEntry {
	e := pathEntry{Name: name, ContentLength: strconv.FormatInt(b.Size, 10), ETag: b.ETagBare(),
		LastModified: httpTime(b.LastModified()), CreationTime: fileTime(b.Created)}
	if b.IsDirectory() {
		e.IsDirectory = "true"
	}
	if !b.ExpiresOn.IsZero() {
		e.ExpiryTime = fileTime(b.ExpiresOn)
	}
	if l.hns {
		e.Owner, e.Group, e.Permissions = posixOf(b)
	}
	e.EncryptionContext = b.EncryptionContext
	return e
}

// nameOwners lists the entries' owners by name where one is known; the
// owning group is a group's, which upn=true leaves as it is.
func nameOwners(names *principalNames, entries []pathEntry) error {
	for i := range entries {
		owner, err := names.of(entries[i].Owner)
		if err != nil {
			return err
		}
		entries[i].Owner = owner
	}
	return nil
}

// posixOf is a path's owner, group and permissions as listings show them
// (blobdata.Blob.Access: the stored access control, or the defaults of a
// path written without one).
func posixOf(b *blobdata.Blob) (owner, group, permissions string) {
	p := b.Access(b.IsDirectory())
	return p.Owner, p.Group, p.Mode().Symbolic(p.ACL.Extended())
}

// firstError is the first of errs that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
