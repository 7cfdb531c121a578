package blob

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// List Blobs' showonly= (BlobStorage.json, Container_ListBlobHierarchySegment
// "showonly"), served on an account with a hierarchical namespace: the
// Data Lake SDKs list deleted paths (showonly=deleted, their
// ListDeletedPaths) and directories (showonly=directories, their
// ListDirectoryPaths) through it.
const (
	showDeleted     = "deleted"
	showDirectories = "directories"
)

// parseShowOnly reads showonly: "" when absent. Any other value than
// deleted or directories is 400 InvalidQueryParameterValue, and so is
// either on a flat account, which has neither directories nor deleted
// paths to show apart from its blobs.
func (s *Service) parseShowOnly(r *http.Request) (string, error) {
	raw, given := r.URL.Query()["showonly"]
	if !given {
		return "", nil
	}
	v := strings.ToLower(raw[0])
	if v != showDeleted && v != showDirectories {
		return "", azerr.InvalidQuery("showonly", raw[0], "")
	}
	if !s.isHNS(r) {
		return "", azerr.InvalidQuery("showonly", raw[0], "showonly is served on an account with a hierarchical namespace")
	}
	return v, nil
}

// listedElem is the state of a blob a base listing shows: the soft-deleted
// base blob under showonly=deleted, else the base blob.
func (p listParams) listedElem() string {
	if p.showOnly == showDeleted {
		return blobdata.ElemDeleted
	}
	return blobdata.ElemBase
}

// listedRecord reports whether a base listing shows the record of
// listedElem: a soft-deleted path whose retention has not ended under
// showonly=deleted; otherwise a committed blob (or one with uncommitted
// blocks only, under include=uncommittedblobs) that has not expired, and
// under showonly=directories a directory only.
func (p listParams) listedRecord(rec *blobdata.Blob, now time.Time) bool {
	switch p.showOnly {
	case showDeleted:
		deleted, expired := rec.SoftDeleted(now)
		return deleted && !expired
	case showDirectories:
		if !rec.IsDirectory() {
			return false
		}
	}
	return (rec.Committed || p.include["uncommittedblobs"]) && !rec.ExpiredAt(now)
}

// writeDeletionIdentity writes DeletionId and Deleted of a path listed
// under showonly=deleted, before its Properties, as the service answers
// them (the Data Lake SDKs read DeletionId for Undelete Path).
func writeDeletionIdentity(x *xmlWriter, it blobItem, p listParams) {
	if p.showOnly != showDeleted {
		return
	}
	x.Elem("DeletionId", DeletionID(it.rec.DeletedAt))
	x.Elem("Deleted", "true")
}

// fileTimeEpoch is 1601-01-01 in Unix seconds: the epoch of Windows file
// times, which count 100-nanosecond ticks.
const fileTimeEpoch = -11644473600

// DeletionID names one soft deletion of a path: the time it was deleted
// as a Windows file time, in decimal, as the service's deletion IDs are
// (x-ms-deletion-id 132651921421849086 is a delete at 2021-05-11T07:35:42Z).
func DeletionID(deletedAt time.Time) string {
	// A time.Duration spans 292 years only: count seconds and ticks apart.
	ticks := (deletedAt.Unix()-fileTimeEpoch)*1e7 + int64(deletedAt.Nanosecond()/100)
	return strconv.FormatInt(ticks, 10)
}
