package dfs

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
)

// dfsQuestions are the ACL checks of the dfs operation op on t, as
// posixacl's table of operations defines them; nil for the operations
// only a role allows (the filesystems', setAccessControlRecursive).
func dfsQuestions(r *http.Request, op string, t target) func() ([]pathQuestion, error) {
	return func() ([]pathQuestion, error) {
		on := func(o posixacl.Operation) []pathQuestion { return []pathQuestion{{op: o, path: t}} }
		switch op {
		case "CreateFile", "CreateDirectory":
			return on(posixacl.CreatePath), nil
		case "DeletePath":
			recursive, err := optionalBool(r.URL.Query().Get("recursive"), "recursive")
			if recursive {
				return on(posixacl.DeleteRecursive), err
			}
			return on(posixacl.DeletePath), err
		case "RenamePath":
			src, err := parseRenameSource(r)
			if err != nil {
				return nil, err
			}
			return []pathQuestion{{op: posixacl.RenamePath, path: target(src), destination: &t}}, nil
		case "GetPathStatus":
			return on(posixacl.GetStatus), nil
		case "GetAccessControl":
			return on(posixacl.GetAccessControl), nil
		case "SetAccessControl":
			return setAccessQuestions(r, t), nil
		case "AppendData", "FlushData", "SetPathProperties", "LeasePath", "BreakPathLease":
			return on(posixacl.WriteFile), nil
		case "ListPaths":
			dir := target{Filesystem: t.Filesystem, Path: strings.Trim(r.URL.Query().Get("directory"), "/")}
			return []pathQuestion{{op: posixacl.ListDirectory, path: dir}}, nil
		}
		return nil, nil
	}
}

// setAccessQuestions are setAccessControl's checks: a new owner is the
// super-user's to give, a new owning group the owner's when a member of
// it, the bits and ACL the owner's (posixacl's SetOwner, SetGroup and
// SetAccessControl).
func setAccessQuestions(r *http.Request, t target) []pathQuestion {
	var qs []pathQuestion
	if r.Header.Get(headerOwner) != "" {
		qs = append(qs, pathQuestion{op: posixacl.SetOwner, path: t})
	}
	if g := r.Header.Get(headerGroup); g != "" {
		qs = append(qs, pathQuestion{op: posixacl.SetGroup, path: t, newGroup: g})
	}
	if r.Header.Get(headerPermissions) != "" || r.Header.Get(headerACL) != "" || len(qs) == 0 {
		qs = append(qs, pathQuestion{op: posixacl.SetAccessControl, path: t})
	}
	return qs
}

// blobQuestions are the ACL checks of the Blob operations on a path of a
// hierarchical namespace that are its dfs operations under another API,
// so that the Blob API allows no more than the dfs one: the reads of a
// file's content or metadata (Get Blob, Get Blob Metadata, Get Block
// List, Query Blob Contents) a read, Get Blob Properties a status, the
// writes that create or replace a blob (blobCreates) a create, the
// writes to an existing blob's content, properties, lease or tier
// (blobWrites) a write to the file ("Access control model in Azure Data
// Lake Storage", "Common scenarios related to ACL permissions"), Delete
// Blob a delete, List Blobs a directory's listing (and, as it scans, the
// listing of each directory below whose entries it answers:
// acl_listing.go); nil for the rest, which only a role allows. A copy
// that reads its source with the caller's own credentials reads it as
// Get Blob.
func (s *Service) blobQuestions(r *http.Request, op string, t target) []pathQuestion {
	on := func(o posixacl.Operation) []pathQuestion { return []pathQuestion{{op: o, path: t}} }
	switch {
	case blobCreates[op]:
		return append(on(posixacl.CreatePath), s.sourceQuestions(r)...)
	case blobWrites[op]:
		return append(on(posixacl.WriteFile), s.sourceQuestions(r)...)
	}
	switch op {
	case "GetBlob", "GetBlobMetadata", "GetBlockList", "QueryBlobContents":
		return on(posixacl.ReadFile)
	case "GetBlobProperties":
		return on(posixacl.GetStatus)
	case "DeleteBlob":
		return on(posixacl.DeletePath)
	case "ListBlobs":
		return []pathQuestion{{op: posixacl.ListDirectory, path: listBlobsDirectory(r, t)}}
	}
	return nil
}

// blobCreates are the Blob writes that create a blob or replace it whole,
// as Path - Create does a file.
var blobCreates = map[string]bool{
	"PutBlob": true, "PutAppendBlob": true, "PutBlockList": true, "PutBlobFromURL": true,
	"CopyBlob": true, "CopyBlobFromURL": true,
}

// blobWrites are the Blob writes to an existing blob, as append, flush,
// Set Properties and Lease are to a file: its blocks, content, metadata,
// properties, lease, snapshots and tier.
var blobWrites = map[string]bool{
	"PutBlock": true, "PutBlockFromURL": true, "AppendBlock": true, "AppendBlockFromURL": true,
	"SealAppendBlob": true, "SetBlobMetadata": true, "SetBlobProperties": true, "SnapshotBlob": true,
	"SetBlobTier": true, "LeaseBlob": true, "AcquireBlobLease": true, "RenewBlobLease": true,
	"ChangeBlobLease": true, "ReleaseBlobLease": true, "BreakBlobLease": true,
}

// sourceQuestions is the read of the source of a copy-type write that
// the caller's own credentials authorize (blob.Service.OwnCredentialSource),
// none for any other write.
func (s *Service) sourceQuestions(r *http.Request) []pathQuestion {
	container, name, ok := s.blobs.OwnCredentialSource(r)
	if !ok {
		return nil
	}
	return []pathQuestion{{op: posixacl.ReadFile, path: target{Filesystem: container, Path: name}}}
}

// listBlobsDirectory is the directory a List Blobs request lists: the
// one its prefix names, or holds the names it starts.
func listBlobsDirectory(r *http.Request, t target) target {
	return target{Filesystem: t.Filesystem, Path: prefixDirectory(r.URL.Query().Get("prefix"))}
}

// prefixDirectory is the directory a List Blobs prefix lists in: up to
// its last slash ("" for the root).
func prefixDirectory(prefix string) string {
	i := strings.LastIndex(prefix, "/")
	if i < 0 {
		return ""
	}
	return strings.Trim(prefix[:i], "/")
}

// checkBlobACL is checkPathACL for a Blob request to the Blob endpoint,
// matched to its operation by the Blob service's own route table. It
// returns the request to serve: a List Blobs one carries the check of the
// entries it answers (blob.ListedCheck).
func (s *Service) checkBlobACL(r *http.Request) (*http.Request, error) {
	t, level := blobTarget(r)
	op := ""
	r, err := s.checkPathACL(r, func() ([]pathQuestion, error) {
		rule, err := s.blobs.Routes().Match(r, level)
		if err != nil {
			return nil, nil // the Blob service answers it
		}
		op = rule.Op
		return s.blobQuestions(r, rule.Op, t), nil
	})
	if err != nil || op != "ListBlobs" {
		return r, err
	}
	dir := listBlobsDirectory(r, t)
	guard := s.newListingGuard(r, dir.Filesystem, dir.Path)
	return blob.WithListedCheck(r, guard.entry), nil
}

// blobTarget is the container and blob a Blob request addresses, as the
// Blob service reads its path: one segment is a container when the
// request says restype=container or account, and otherwise a blob of the
// $root container.
func blobTarget(r *http.Request) (target, route.Level) {
	p := strings.TrimPrefix(request.Of(r).Path, "/")
	t, level := parsePath(p)
	if level == route.Container && !strings.Contains(p, "/") {
		if rt := r.URL.Query().Get("restype"); rt != "container" && rt != "account" {
			return target{Filesystem: "$root", Path: p}, route.Object
		}
	}
	return t, level
}
