package blobdata

import (
	"encoding/binary"
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

// upnCountKey holds how many object IDs SaveUPN has named in the account,
// as an 8-byte big-endian count, beside the names and going with the
// account's data as they do.
func upnCountKey(account string) []byte {
	return store.NewKey(store.SpaceAccount).Str(account).Str("blob").Str("upn-count").Bytes()
}

// MaxUPNs bounds the object IDs an account records a name for. Without
// --oauthKeys a Bearer token's claims are taken unverified, as Azurite
// takes them, so any caller could make up object IDs without end; each
// costs a stored record until the bound. Real test suites name a handful
// of principals.
const MaxUPNs = 10000

// ErrUPNsFull is SaveUPN's answer for a new object ID in an account that
// holds MaxUPNs names already.
var ErrUPNsFull = errors.New("the account has recorded the most user principal names it keeps")

// LoadUPN is the user principal name recorded for objectID, "" when none.
func LoadUPN(tx store.Tx, account, objectID string) (string, error) {
	v, err := tx.Get(upnKey(account, objectID))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return string(v), err
}

// SaveUPN records upn as objectID's user principal name: a changed name
// replaces the one recorded, and a new object ID counts against MaxUPNs
// (ErrUPNsFull past it). Names recorded before the count was kept are not
// in it, so the bound is on the names recorded since.
func SaveUPN(tx store.Tx, account, objectID, upn string) error {
	key := upnKey(account, objectID)
	_, err := tx.Get(key)
	switch {
	case err == nil:
		return tx.Put(key, []byte(upn))
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	count, err := upnCount(tx, account)
	if err != nil {
		return err
	}
	if count >= MaxUPNs {
		return ErrUPNsFull
	}
	if err := tx.Put(upnCountKey(account), binary.BigEndian.AppendUint64(nil, count+1)); err != nil {
		return err
	}
	return tx.Put(key, []byte(upn))
}

// upnCount is how many object IDs SaveUPN has named in the account.
func upnCount(tx store.Tx, account string) (uint64, error) {
	v, err := tx.Get(upnCountKey(account))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	case len(v) != 8:
		return 0, errors.New("blobdata: malformed user principal name count")
	}
	return binary.BigEndian.Uint64(v), nil
}
