package blob

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// The Blob API on an account with a hierarchical namespace (--hnsAccounts).
// The account's blobs are the Data Lake API's paths, one namespace for
// both ("Blob Storage features available in Azure Data Lake Storage"), so
// the Blob API keeps the tree's rules: a blob it creates gets the missing
// directories above it, in the write's own transaction, and none of them
// may be a file; and a directory, a blob of its own, is deleted only when
// empty, the Blob API having no recursive delete ("Known issues with Azure
// Data Lake Storage", Blob storage APIs). A flat account's names are only
// names.

// createParents creates the missing directories above the request's blob
// when its account has a hierarchical namespace. A parent that is a file
// is 409 PathConflict, the answer Path Create gives for the same name.
func (s *Service) createParents(tx store.Tx, r *http.Request) error {
	if !s.isHNS(r) {
		return nil
	}
	t := targetOf(r)
	_, err := blobdata.CreateParents(tx, request.Of(r).Account, t.Container, t.Blob, s.now(), s.versioningDefault, Creator(r))
	if errors.Is(err, blobdata.ErrParentIsFile) {
		return azerr.New(azerr.PathConflict)
	}
	return err
}

// own gives rec, the blob of a Blob write that creates or replaces it on
// an account with a hierarchical namespace, the access control Path -
// Create gives a path made without x-ms-permissions and x-ms-umask: the
// caller owns it, and it takes its parent directory's owning group and
// default ACL (blobdata paths_owner.go). A flat account's blobs have none.
func (s *Service) own(tx store.Tx, r *http.Request, rec *blobdata.Blob) error {
	if !s.isHNS(r) {
		return nil
	}
	t := targetOf(r)
	parent, err := blobdata.ParentAccess(tx, request.Of(r).Account, t.Container, t.Blob, s.now())
	if err != nil {
		return err
	}
	rec.Posix = blobdata.NewPosixState(parent, posixacl.NewPath{Directory: rec.IsDirectory()}, Creator(r))
	return nil
}

// Creator is who r's caller is to the ACLs of the paths it creates: the
// object ID of an OAuth token; Shared Key and every SAS carry no identity
// and are the super-user ("Access control model in Azure Data Lake
// Storage", section "Shared Key and Shared Access Signature (SAS)
// authorization"), whom $superuser stands for as an owner.
func Creator(r *http.Request) posixacl.Principal {
	info := request.Of(r)
	if info == nil || info.Identity == nil || info.Identity.Kind != auth.Bearer || info.Identity.Principal == nil {
		return posixacl.Principal{Superuser: true}
	}
	return posixacl.Principal{ObjectID: info.Identity.Principal.ObjectID}
}

// keepDirectory refuses a write that would replace a directory of a
// hierarchical namespace with a file (a blob without hdi_isfolder=true):
// the paths under it would be left under a file. It is 409 PathConflict,
// "the specified path ... exists and its resource type is invalid for this
// operation", as Path Create answers a file created over a directory.
func (s *Service) keepDirectory(r *http.Request, old, rec *blobdata.Blob) error {
	if s.isHNS(r) && old.IsDirectory() && !rec.IsDirectory() {
		return azerr.New(azerr.PathConflict)
	}
	return nil
}

// checkDirectoryDelete refuses Delete Blob of a directory of a
// hierarchical namespace that still has paths under it (409
// DirectoryIsNotEmpty) or that names x-ms-delete-snapshots (400
// OperationNotSupportedOnDirectory), as the service answers both
// (azerr/codes_hns.go cites the recorded answers). Any other blob is
// deleted as on a flat account.
func checkDirectoryDelete(tx store.Tx, d *blobdata.Deletion, a deleteArgs, base *blobdata.Blob) error {
	if !a.hns || !base.IsDirectory() {
		return nil
	}
	if a.snapshots != "" {
		return azerr.New(azerr.OperationNotSupportedOnDirectory)
	}
	full, err := blobdata.HasChildren(tx, d.Account, d.Container, d.Name)
	if err != nil {
		return err
	}
	if full {
		return azerr.New(azerr.DirectoryIsNotEmpty)
	}
	return nil
}

// OwnCredentialSource is the blob a copy-type request r names in
// x-ms-copy-source when r's own credentials are what let it read that
// source (authorizeSource): a blob of r's account whose URL carries no
// SAS, with no x-ms-copy-source-authorization. On an account with a
// hierarchical namespace a caller the ACLs authorize must be let read it
// as Get Blob would be (service/dfs acl_ops.go). ok is false for every
// other source, which its own SAS or token authorizes or refuses.
func (s *Service) OwnCredentialSource(r *http.Request) (container, name string, ok bool) {
	if r.Header.Get("x-ms-copy-source") == "" {
		return "", "", false
	}
	src, err := s.parseCopySource(r)
	if err != nil || !src.local || src.hasSAS() || src.authorization != "" || src.account != request.Of(r).Account {
		return "", "", false
	}
	return src.t.Container, src.t.Blob, true
}

// ListedCheck is asked about each entry of a List Blobs page, in name
// order, in the transaction that reads the page and before any of it is
// answered: a blob by its name and record, a BlobPrefix by its name less
// the delimiter that ends it, with no record. An error refuses the
// request. On an account with a hierarchical namespace the ACLs of the
// directories holding the entries decide what a caller the ACLs decide
// may list (service/dfs acl_listing.go).
type ListedCheck func(tx store.Tx, name string, rec *blobdata.Blob) error

type listedCheckKey struct{}

// WithListedCheck is r carrying check for its List Blobs.
func WithListedCheck(r *http.Request, check ListedCheck) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), listedCheckKey{}, check))
}

// checkListed asks r's ListedCheck, when it carries one, about items: the
// page and the entry after it, which the next marker names.
func checkListed(tx store.Tx, r *http.Request, items []blobItem, delimiter string) error {
	check, _ := r.Context().Value(listedCheckKey{}).(ListedCheck)
	if check == nil {
		return nil
	}
	for _, it := range items {
		name := it.name
		if it.rec == nil {
			name = strings.TrimSuffix(name, delimiter)
		}
		if err := check(tx, name, it.rec); err != nil {
			return err
		}
	}
	return nil
}
