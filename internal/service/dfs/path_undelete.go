package dfs

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// undeleteSourceHeader names the soft-deleted path Path - Undelete
// restores: "<path>?deletionid=<ID>" (DataLakeStorage.json, Path_Undelete),
// the ID a listing of deleted paths answers (List Blobs' showonly=deleted).
const undeleteSourceHeader = "x-ms-undelete-source"

// undeletePath is Path - Undelete (PUT ?comp=undelete), on an account with
// a hierarchical namespace: the path's soft deletion the ID names comes
// back, a directory's with the paths deleted under it by the same delete,
// and the answer says its x-ms-resource-type. A path that exists again is
// 409 PathAlreadyExists, a deletion no longer kept 404 PathNotFound, and
// a path whose parent directory is gone 404 ParentNotFound.
func (s *Service) undeletePath(w http.ResponseWriter, r *http.Request) error {
	if err := s.onlyHNS(r); err != nil {
		return err
	}
	t, account := targetOf(r), request.Of(r).Account
	id, err := deletionIDOf(r.Header.Get(undeleteSourceHeader), t.Path)
	if err != nil {
		return err
	}
	var restored *blobdata.Blob
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if err := existingFilesystem(tx, account, t.Filesystem); err != nil {
			return err
		}
		if restored, err = s.deletedPath(tx, account, t.Filesystem, t.Path, id); err != nil {
			return err
		}
		if err := s.livePath(tx, account, t.Filesystem, t.Path); err != nil {
			return err
		}
		names := []string{t.Path}
		if restored.IsDirectory() {
			under, err := deletedWith(tx, account, t.Filesystem, t.Path, id)
			if err != nil {
				return err
			}
			names = append(names, under...)
		}
		for _, name := range names {
			if err := s.restore(tx, account, t.Filesystem, name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.Header().Set(resourceTypeHeader, resourceTypeOf(restored))
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
	return nil
}

// deletionIDOf reads x-ms-undelete-source: the path it names must be the
// request's (a leading slash aside), and deletionid= is required; 400
// InvalidHeaderValue otherwise.
func deletionIDOf(source, path string) (string, error) {
	name, query, _ := strings.Cut(source, "?")
	q, err := url.ParseQuery(query)
	if unescaped, uerr := url.PathUnescape(name); uerr == nil {
		name = unescaped
	}
	if err != nil || q.Get("deletionid") == "" || strings.TrimPrefix(name, "/") != path {
		return "", azerr.InvalidHeader(undeleteSourceHeader, source)
	}
	return q.Get("deletionid"), nil
}

// deletedPath is the soft-deleted path name whose deletion id names; its
// expired states are purged first. 404 PathNotFound when none is kept.
func (s *Service) deletedPath(tx store.Tx, account, filesystem, name, id string) (*blobdata.Blob, error) {
	d, err := blobdata.NewDeletion(tx, account, filesystem, name, s.now(), s.versioningDefault)
	if err != nil {
		return nil, err
	}
	if err := d.PurgeExpired(tx); err != nil {
		return nil, err
	}
	rec, err := blobdata.LoadRecord(tx, d.Key(blobdata.ElemDeleted))
	if err != nil {
		return nil, err
	}
	if rec == nil || blob.DeletionID(rec.DeletedAt) != id {
		return nil, azerr.New(azerr.PathNotFound)
	}
	return rec, nil
}

// livePath checks that the path is free (409 PathAlreadyExists) and its
// parent a directory (404 ParentNotFound): a restored path takes its
// place in the tree again.
func (s *Service) livePath(tx store.Tx, account, filesystem, name string) error {
	now := s.now()
	b, err := pathForWrite(tx, account, filesystem, name, now)
	if err != nil {
		return err
	}
	if b != nil {
		return azerr.New(azerr.PathAlreadyExists)
	}
	parents := blobdata.Parents(name)
	if len(parents) == 0 {
		return nil
	}
	parent, err := pathForWrite(tx, account, filesystem, parents[len(parents)-1], now)
	if err != nil {
		return err
	}
	if parent == nil || !parent.IsDirectory() {
		return azerr.New(azerr.ParentNotFound)
	}
	return nil
}

// deletedWith returns the paths under directory dir whose soft-deleted
// record the same delete left (the same deletion ID), in name order, so
// that a directory comes back with what it held.
func deletedWith(tx store.Tx, account, filesystem, dir, id string) ([]string, error) {
	prefix := blobdata.NamePrefixKey(account, filesystem, dir+"/")
	var names []string
	var scanErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		name, elem, err := blobdata.BlobNameFromKey(k)
		if err != nil || elem != blobdata.ElemDeleted {
			scanErr = err
			return err == nil
		}
		rec, err := blobdata.DecodeBlobProperties(v)
		if err != nil {
			scanErr = err
			return false
		}
		if blob.DeletionID(rec.DeletedAt) == id {
			names = append(names, name)
		}
		return true
	})
	if err == nil {
		err = scanErr
	}
	return names, err
}

// restore brings back the soft-deleted states of one path, as Undelete
// Blob does.
func (s *Service) restore(tx store.Tx, account, filesystem, name string) error {
	d, err := blobdata.NewDeletion(tx, account, filesystem, name, s.now(), s.versioningDefault)
	if err != nil {
		return err
	}
	if err := d.PurgeExpired(tx); err != nil {
		return err
	}
	if _, err := d.Restore(tx); err != nil {
		return err
	}
	return d.Refs.Apply(tx, d.Now)
}
