package dfs

import (
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// dfsCodes are the Blob codes the dfs endpoint spells its own way, for
// the same condition and status ("Azure Data Lake Storage Gen2 error
// codes"; the SDKs' datalakeerror lists both spellings).
var dfsCodes = map[string]string{
	azerr.ContainerNotFound:                     azerr.FilesystemNotFound,
	azerr.ContainerAlreadyExists:                azerr.FilesystemAlreadyExists,
	azerr.ContainerBeingDeleted:                 azerr.FilesystemBeingDeleted,
	azerr.BlobNotFound:                          azerr.PathNotFound,
	azerr.BlobAlreadyExists:                     azerr.PathAlreadyExists,
	azerr.LeaseIdMismatchWithBlobOperation:      azerr.LeaseIdMismatchWithPathOperation,
	azerr.LeaseNotPresentWithBlobOperation:      azerr.LeaseNotPresentWithPathOperation,
	azerr.LeaseIdMismatchWithContainerOperation: azerr.LeaseIdMismatchWithPathOperation,
}

// dfsError is err with a Blob code the dfs endpoint spells otherwise
// replaced by the dfs code and its message; any other error unchanged.
func dfsError(err error) error {
	e, ok := azerr.As(err)
	if !ok {
		return err
	}
	code, renamed := dfsCodes[e.Code]
	if !renamed {
		return err
	}
	d := azerr.New(code)
	d.Status, d.Header = e.Status, e.Header
	return d
}
