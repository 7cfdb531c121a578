package blobdata

import (
	"errors"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// The user principal names an account's Bearer callers' tokens gave
// (auth.Principal.UPN), by object ID, for Data Lake's upn=true (Path - Get
// Properties, Path - List): Lazuli has no directory, so the names are the
// ones its tokens told it. The record is the name's bytes. Each account
// keeps its own, beside its service properties, so that it goes with the
// account's data.
func upnKey(account, objectID string) []byte {
	return store.NewKey(store.SpaceAccount).Str(account).Str("blob").Str("upn").Str(objectID).Bytes()
}

// LoadUPN is the user principal name recorded for objectID, "" when none.
func LoadUPN(tx store.Tx, account, objectID string) (string, error) {
	v, err := tx.Get(upnKey(account, objectID))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return string(v), err
}

// SaveUPN records upn as objectID's user principal name.
func SaveUPN(tx store.Tx, account, objectID, upn string) error {
	return tx.Put(upnKey(account, objectID), []byte(upn))
}
