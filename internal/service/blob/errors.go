package blob

import "github.com/lazuli-storage/lazuli/internal/rule/azerr"

// The error answers many operations share.

// containerNotFound is 404 ContainerNotFound.
func containerNotFound() error { return azerr.New(azerr.ContainerNotFound) }

// blobNotFound is 404 BlobNotFound.
func blobNotFound() error { return azerr.New(azerr.BlobNotFound) }
