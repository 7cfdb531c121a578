package blobdata

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Who owns a path a write creates on an account with a hierarchical
// namespace, whichever API creates it: the creator, with its parent
// directory's owning group and default ACL (NewPosixState). The Blob API's
// creating writes (Put Blob, Put Block List, the copies) and the
// directories they create above a blob follow Path - Create ("Access
// control model in Azure Data Lake Storage", "The owning user": "the user
// who created the item is automatically the owning user"; with Shared Key
// or a SAS that user is $superuser).

// ParentAccess is the access control of the directory name is created
// in: its parent directory's, or the container's root's for a name at the
// top (or whose parent is not there).
func ParentAccess(tx store.Tx, account, container, name string, now time.Time) (PosixState, error) {
	c, _, err := LoadContainer(tx, account, container)
	if err != nil {
		return PosixState{}, err
	}
	parent := c.RootAccess()
	if parents := Parents(name); len(parents) > 0 {
		p, err := LoadLiveBlob(tx, account, container, parents[len(parents)-1], now)
		if err != nil {
			return PosixState{}, err
		}
		if p != nil && p.Committed {
			parent = p.Access(true)
		}
	}
	return parent, nil
}
